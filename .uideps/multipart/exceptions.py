from python_multipart.exceptions import *
