#pragma once
// GS_CPU_CLONES: compile a hot loop for AVX-512, AVX2 and baseline x86-64 and pick one at load
// time (GCC function multi-versioning); nothing elsewhere.
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define GS_CPU_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define GS_CPU_CLONES
#endif
