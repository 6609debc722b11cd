#pragma once
// MPSFW_HD marks functions that run on both the host and a CUDA device, so one
// definition of the physics serves every backend.
#if defined(__CUDACC__)
#define MPSFW_HD __host__ __device__ inline
#else
#define MPSFW_HD inline
#endif
