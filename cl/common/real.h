// Element precision for every kernel: the host builds each program with -D REAL=float or
// -D REAL=double (and PORTACL_DOUBLE=0|1), so that one source serves both precisions.
#ifndef PORTACL_REAL_H
#define PORTACL_REAL_H

#if PORTACL_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#ifndef REAL
#define REAL float
#endif

typedef REAL real;

#if PORTACL_DOUBLE
typedef double2 real2;
typedef double4 real4;
#else
typedef float2 real2;
typedef float4 real4;
#endif

#endif
