// Public API: which declarations libreftab.so exports.
//
// The library is compiled with hidden visibility (meson.build: gnu_symbol_visibility), so
// nothing is exported unless declared between REFTAB_PUBLIC_BEGIN and REFTAB_PUBLIC_END. Each
// public header wraps its declarations in the pair; internal headers do not, and their
// symbols stay inside the library, free to change without a new soname. (A pragma rather
// than an attribute on each declaration, so that a header cannot export half of itself.)
#ifndef REFTAB_FORMAT_VISIBILITY_H_
#define REFTAB_FORMAT_VISIBILITY_H_

#define REFTAB_PUBLIC_BEGIN _Pragma("GCC visibility push(default)")
#define REFTAB_PUBLIC_END _Pragma("GCC visibility pop")

#endif  // REFTAB_FORMAT_VISIBILITY_H_
