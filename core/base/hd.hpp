#pragma once
// MPSFW_HD marks functions that run on both the host and a CUDA device, so one
// definition of the physics serves every backend.
#if defined(__CUDACC__)
#define MPSFW_HD __host__ __device__ inline
#else
#define MPSFW_HD inline
#endif

// A lambda that runs on the host and on a CUDA device (nvcc --extended-lambda):
// the body of a for_each of the particle layer's backends. It copies what it
// uses; a member function copies the members it needs into locals first.
#if defined(__CUDACC__)
#define MPSFW_LAMBDA [=] __host__ __device__
#else
#define MPSFW_LAMBDA [=]
#endif
