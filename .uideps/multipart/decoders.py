from python_multipart.decoders import *
