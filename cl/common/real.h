// Element precision for every kernel: the host builds each program with -D REAL=float or
// -D REAL=double (and PORTACL_DOUBLE=0|1), so that one source serves both precisions. Phase 2 of a
// two-phase dispatch on a device without fp64 is built with REAL=float and PORTACL_DOUBLE_FLOAT=1
// (double-float arithmetic, common/double_float.h).
#ifndef PORTACL_REAL_H
#define PORTACL_REAL_H

#ifndef PORTACL_DOUBLE
#define PORTACL_DOUBLE 0
#endif

#if PORTACL_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#ifndef PORTACL_DOUBLE_FLOAT
#define PORTACL_DOUBLE_FLOAT 0
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
