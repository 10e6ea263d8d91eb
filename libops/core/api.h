// What libops.so exports (Note [Exported symbols] in CMakeLists.txt): the
// library is compiled with hidden visibility, and the headers an op library
// uses put their declarations between LIBOPS_API_BEGIN and LIBOPS_API_END,
// which gives them default visibility.
#pragma once

#if defined(__GNUC__)
#define LIBOPS_API_BEGIN _Pragma("GCC visibility push(default)")
#define LIBOPS_API_END _Pragma("GCC visibility pop")
#else
#define LIBOPS_API_BEGIN
#define LIBOPS_API_END
#endif
