// The mask's shape for the filter kernels that take one whole (the strip and row-band paths): KW x KH
// samples, radii RX and RY. Defaults, so that a kernel file compiles on its own; the host always sets
// them. Included before common/filter_common.h, whose own radius defaults would otherwise apply.
#ifndef PORTACL_FILTER_MASK_SHAPE_H
#define PORTACL_FILTER_MASK_SHAPE_H

#ifndef KW
#define KW 3
#endif
#ifndef KH
#define KH 3
#endif
#ifndef RX
#define RX (KW / 2)
#endif
#ifndef RY
#define RY (KH / 2)
#endif

#endif
