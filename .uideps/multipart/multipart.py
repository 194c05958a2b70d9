from python_multipart.multipart import *
