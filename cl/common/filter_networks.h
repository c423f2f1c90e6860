// Compare-exchange networks of the 5x5 median in cl/filter_strip.cl and cl/filter_rows.cl, on
// NET_T values (int by default; the row-band path's byte vectors) in private arrays (every index
// a constant, so the values stay in registers). They are Batcher's odd-even
// merges, with the comparators that feed no needed output left out (a comparator whose max is
// unused is a lone min, and so on). MED25_MID merges two sorted columns pairs (10 + 10) and keeps
// only the ranks 7..12 that the final step reads. tests/test_filter_strip.cpp holds the medians
// they give to the serial reference.
#ifndef PORTACL_FILTER_NETWORKS_H
#define PORTACL_FILTER_NETWORKS_H

#ifndef NET_T
#define NET_T int
#endif
// The compare-exchange's halves (the row-band path's wide vectors have no min/max built-ins).
#ifndef NET_MIN
#define NET_MIN min
#define NET_MAX max
#endif

#define NET_MED3(a, b, c) NET_MAX(NET_MIN(a, b), NET_MIN(NET_MAX(a, b), c))

// s[0..3] sorted in place (5 comparators).
#define NET_SORT4(s)                                                    \
    {                                                                   \
        const NET_T t0 = NET_MIN(s[0], s[1]), t1 = NET_MAX(s[0], s[1]); \
        const NET_T t2 = NET_MIN(s[2], s[3]), t3 = NET_MAX(s[2], s[3]); \
        const NET_T t5 = NET_MAX(t0, t2), t6 = NET_MIN(t1, t3);         \
        s[0] = NET_MIN(t0, t2);                                         \
        s[1] = NET_MIN(t5, t6);                                         \
        s[2] = NET_MAX(t5, t6);                                         \
        s[3] = NET_MAX(t1, t3);                                         \
    }

// c[0..4] = sorted s[0..3] (sorted) with x inserted (4 comparators).
#define NET_INSERT4(s, x, c)                                        \
    {                                                               \
        const NET_T t1 = NET_MAX(s[0], x);                          \
        const NET_T t2 = NET_MIN(t1, s[2]), t3 = NET_MAX(t1, s[2]); \
        c[0] = NET_MIN(s[0], x);                                    \
        c[1] = NET_MIN(t2, s[1]);                                   \
        c[2] = NET_MAX(t2, s[1]);                                   \
        c[3] = NET_MIN(t3, s[3]);                                   \
        c[4] = NET_MAX(t3, s[3]);                                   \
    }

// p[0..9] = the merge of sorted a[0..4] and sorted b[0..4] (13 comparators).
#define NET_MERGE55(a, b, p)                                            \
    {                                                                   \
        const NET_T t1 = NET_MAX(a[0], b[0]);                           \
        const NET_T t2 = NET_MIN(a[1], b[1]), t3 = NET_MAX(a[1], b[1]); \
        const NET_T t4 = NET_MIN(a[2], b[2]), t5 = NET_MAX(a[2], b[2]); \
        const NET_T t6 = NET_MIN(a[3], b[3]), t7 = NET_MAX(a[3], b[3]); \
        const NET_T t8 = NET_MIN(a[4], b[4]);                           \
        const NET_T t10 = NET_MIN(t1, t8), t11 = NET_MAX(t1, t8);       \
        const NET_T t12 = NET_MIN(t10, t4), t13 = NET_MAX(t10, t4);     \
        const NET_T t14 = NET_MIN(t3, t6), t15 = NET_MAX(t3, t6);       \
        const NET_T t16 = NET_MIN(t11, t5), t17 = NET_MAX(t11, t5);     \
        p[0] = NET_MIN(a[0], b[0]);                                     \
        p[1] = NET_MIN(t12, t2);                                        \
        p[2] = NET_MAX(t12, t2);                                        \
        p[3] = NET_MIN(t13, t14);                                       \
        p[4] = NET_MAX(t13, t14);                                       \
        p[5] = NET_MIN(t15, t16);                                       \
        p[6] = NET_MAX(t15, t16);                                       \
        p[7] = NET_MIN(t17, t7);                                        \
        p[8] = NET_MAX(t17, t7);                                        \
        p[9] = NET_MAX(a[4], b[4]);                                     \
    }

// r[0..5] = ranks 7..12 of the merge of sorted p[0..9] and sorted q[0..9] (36 min/max).
#define NET_MERGE1010_MID(p, q, r)                                                             \
    {                                                                                          \
        const NET_T t1 = NET_MAX(p[0], q[0]), t3 = NET_MAX(p[1], q[1]);                        \
        const NET_T t5 = NET_MAX(p[2], q[2]), t7 = NET_MAX(p[3], q[3]);                        \
        const NET_T t8 = NET_MIN(p[4], q[4]), t9 = NET_MAX(p[4], q[4]);                        \
        const NET_T t10 = NET_MIN(p[5], q[5]), t11 = NET_MAX(p[5], q[5]);                      \
        const NET_T t12 = NET_MIN(p[6], q[6]), t14 = NET_MIN(p[7], q[7]);                      \
        const NET_T t16 = NET_MIN(p[8], q[8]), t18 = NET_MIN(p[9], q[9]);                      \
        const NET_T t20 = NET_MIN(t1, t16), t21 = NET_MAX(t1, t16);                            \
        const NET_T t22 = NET_MIN(t18, t3), t23 = NET_MAX(t18, t3);                            \
        const NET_T t25 = NET_MAX(t20, t8), t27 = NET_MAX(t10, t22);                           \
        const NET_T t28 = NET_MIN(t12, t5), t29 = NET_MAX(t12, t5);                            \
        const NET_T t30 = NET_MIN(t14, t7), t31 = NET_MAX(t14, t7);                            \
        const NET_T t32 = NET_MIN(t21, t9), t34 = NET_MIN(t11, t23);                           \
        const NET_T t41 = NET_MAX(t25, t28), t42 = NET_MIN(t27, t30), t43 = NET_MAX(t27, t30); \
        const NET_T t44 = NET_MIN(t29, t32), t45 = NET_MAX(t29, t32), t46 = NET_MIN(t31, t34); \
        r[0] = NET_MIN(t41, t42);                                                              \
        r[1] = NET_MAX(t41, t42);                                                              \
        r[2] = NET_MIN(t43, t44);                                                              \
        r[3] = NET_MAX(t43, t44);                                                              \
        r[4] = NET_MIN(t45, t46);                                                              \
        r[5] = NET_MAX(t45, t46);                                                              \
    }

// The median (rank 12) of 25 values: four columns merged into a sorted 20 of which r holds ranks
// 7..12, and the fifth column c sorted. Rank 12 of the union is the least of NET_MAX(r's rank 12 - j,
// c[j - 1]) over j = 0..5 (j values taken from c).
#define NET_MED25_FINAL(r, c)                                                                               \
    NET_MIN(NET_MIN(NET_MIN(r[5], NET_MAX(r[4], c[0])), NET_MIN(NET_MAX(r[3], c[1]), NET_MAX(r[2], c[2]))), \
        NET_MIN(NET_MAX(r[1], c[3]), NET_MAX(r[0], c[4])))

#endif
