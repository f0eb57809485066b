// <limits.h> as CUDA's libcu++ gives it (jitify=True; see _userkernel/_nvrtc.py).
#pragma once
#include <cuda/std/climits>
