from ..v155 import *
