// Storage formats of the k-Wave solver's arrays (thesis Table 5.1): each quantity Q has a storage
// mode ST_Q set by the host, 0 = the element type `real`, 1 = fp16 (vload_half/vstore_half: NVIDIA's
// OpenCL has no fp16 arithmetic, so halves are storage only), 2 = bfloat16 (the upper 16 bits of a
// float, rounded to nearest even). Arithmetic is always in `real`.
#ifndef PORTACL_KWAVE_STORAGE_H
#define PORTACL_KWAVE_STORAGE_H

#define KW_T_0 real
#define KW_T_1 ushort
#define KW_T_2 ushort
#define KW_T_(m) KW_T_##m
#define KW_T(m) KW_T_(m)

inline ushort kw_to_bf16(float v) {
    uint u = as_uint(v);
    u += 0x7FFFu + ((u >> 16) & 1u);  // round to nearest even (NaN inputs do not occur here)
    return (ushort)(u >> 16);
}

#define KW_LD_0(p, i) ((real)(p)[i])
#define KW_LD_1(p, i) ((real)vload_half((i), (const __global half*)(p)))
#define KW_LD_2(p, i) ((real)as_float(((uint)(p)[i]) << 16))
#define KW_LD_(m, p, i) KW_LD_##m(p, i)
#define KW_LD(m, p, i) KW_LD_(m, p, i)

#define KW_ST_0(p, i, v) ((p)[i] = (v))
#define KW_ST_1(p, i, v) vstore_half_rte((float)(v), (i), (__global half*)(p))
#define KW_ST_2(p, i, v) ((p)[i] = kw_to_bf16((float)(v)))
#define KW_ST_(m, p, i, v) KW_ST_##m(p, i, v)
#define KW_ST(m, p, i, v) KW_ST_(m, p, i, v)

#endif
