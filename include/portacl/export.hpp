// PORTACL_API marks the library's interface. libportacl and libportacl_runtime are compiled with
// hidden symbol visibility (-fvisibility=hidden -fvisibility-inlines-hidden), so that only what is
// marked is exported from the shared libraries: their interface is what the headers declare, and
// internal symbols neither clash with a program's own nor slow its dynamic linking.
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define PORTACL_API __attribute__((visibility("default")))
#else
#define PORTACL_API
#endif
