// Compare-exchange networks of the 5x5 median in cl/filter_strip.cl, on int values in private
// arrays (every index a constant, so the values stay in registers). They are Batcher's odd-even
// merges, with the comparators that feed no needed output left out (a comparator whose max is
// unused is a lone min, and so on). MED25_MID merges two sorted columns pairs (10 + 10) and keeps
// only the ranks 7..12 that the final step reads. tests/test_filter_strip.cpp holds the medians
// they give to the serial reference.
#ifndef PORTACL_FILTER_NETWORKS_H
#define PORTACL_FILTER_NETWORKS_H

#define NET_MED3(a, b, c) max(min(a, b), min(max(a, b), c))

// s[0..3] sorted in place (5 comparators).
#define NET_SORT4(s)                                                              \
    {                                                                             \
        const int t0 = min(s[0], s[1]), t1 = max(s[0], s[1]);                    \
        const int t2 = min(s[2], s[3]), t3 = max(s[2], s[3]);                     \
        const int t5 = max(t0, t2), t6 = min(t1, t3);                             \
        s[0] = min(t0, t2);                                                       \
        s[1] = min(t5, t6);                                                       \
        s[2] = max(t5, t6);                                                       \
        s[3] = max(t1, t3);                                                       \
    }

// c[0..4] = sorted s[0..3] (sorted) with x inserted (4 comparators).
#define NET_INSERT4(s, x, c)                                                      \
    {                                                                             \
        const int t1 = max(s[0], x);                                              \
        const int t2 = min(t1, s[2]), t3 = max(t1, s[2]);                         \
        c[0] = min(s[0], x);                                                      \
        c[1] = min(t2, s[1]);                                                     \
        c[2] = max(t2, s[1]);                                                     \
        c[3] = min(t3, s[3]);                                                     \
        c[4] = max(t3, s[3]);                                                     \
    }

// p[0..9] = the merge of sorted a[0..4] and sorted b[0..4] (13 comparators).
#define NET_MERGE55(a, b, p)                                                      \
    {                                                                             \
        const int t1 = max(a[0], b[0]);                                           \
        const int t2 = min(a[1], b[1]), t3 = max(a[1], b[1]);                     \
        const int t4 = min(a[2], b[2]), t5 = max(a[2], b[2]);                     \
        const int t6 = min(a[3], b[3]), t7 = max(a[3], b[3]);                     \
        const int t8 = min(a[4], b[4]);                                           \
        const int t10 = min(t1, t8), t11 = max(t1, t8);                           \
        const int t12 = min(t10, t4), t13 = max(t10, t4);                         \
        const int t14 = min(t3, t6), t15 = max(t3, t6);                           \
        const int t16 = min(t11, t5), t17 = max(t11, t5);                         \
        p[0] = min(a[0], b[0]);                                                   \
        p[1] = min(t12, t2);                                                      \
        p[2] = max(t12, t2);                                                      \
        p[3] = min(t13, t14);                                                     \
        p[4] = max(t13, t14);                                                     \
        p[5] = min(t15, t16);                                                     \
        p[6] = max(t15, t16);                                                     \
        p[7] = min(t17, t7);                                                      \
        p[8] = max(t17, t7);                                                      \
        p[9] = max(a[4], b[4]);                                                   \
    }

// r[0..5] = ranks 7..12 of the merge of sorted p[0..9] and sorted q[0..9] (36 min/max).
#define NET_MERGE1010_MID(p, q, r)                                                \
    {                                                                             \
        const int t1 = max(p[0], q[0]), t3 = max(p[1], q[1]);                     \
        const int t5 = max(p[2], q[2]), t7 = max(p[3], q[3]);                     \
        const int t8 = min(p[4], q[4]), t9 = max(p[4], q[4]);                     \
        const int t10 = min(p[5], q[5]), t11 = max(p[5], q[5]);                   \
        const int t12 = min(p[6], q[6]), t14 = min(p[7], q[7]);                   \
        const int t16 = min(p[8], q[8]), t18 = min(p[9], q[9]);                   \
        const int t20 = min(t1, t16), t21 = max(t1, t16);                         \
        const int t22 = min(t18, t3), t23 = max(t18, t3);                         \
        const int t25 = max(t20, t8), t27 = max(t10, t22);                        \
        const int t28 = min(t12, t5), t29 = max(t12, t5);                         \
        const int t30 = min(t14, t7), t31 = max(t14, t7);                         \
        const int t32 = min(t21, t9), t34 = min(t11, t23);                        \
        const int t41 = max(t25, t28), t42 = min(t27, t30), t43 = max(t27, t30);  \
        const int t44 = min(t29, t32), t45 = max(t29, t32), t46 = min(t31, t34);  \
        r[0] = min(t41, t42);                                                     \
        r[1] = max(t41, t42);                                                     \
        r[2] = min(t43, t44);                                                     \
        r[3] = max(t43, t44);                                                     \
        r[4] = min(t45, t46);                                                     \
        r[5] = max(t45, t46);                                                     \
    }

// The median (rank 12) of 25 values: four columns merged into a sorted 20 of which r holds ranks
// 7..12, and the fifth column c sorted. Rank 12 of the union is the least of max(r's rank 12 - j,
// c[j - 1]) over j = 0..5 (j values taken from c).
#define NET_MED25_FINAL(r, c)                                                                   \
    min(min(min(r[5], max(r[4], c[0])), min(max(r[3], c[1]), max(r[2], c[2]))),                  \
        min(max(r[1], c[3]), max(r[0], c[4])))

#endif
