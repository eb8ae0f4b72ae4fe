import numpy as F

x = F.zeros(3)
total = F.sum(x)
relu = F.maximum(x, 0)
