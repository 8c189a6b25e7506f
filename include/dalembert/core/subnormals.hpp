#pragma once
// Subnormal numbers flushed to zero within a scope: results that would be subnormal are zero, and
// subnormal operands read as zero (FTZ and DAZ of SSE on x86-64, FZ on AArch64; elsewhere nothing
// changes). A quantity that decays without end, such as the spin of a Chaplygin sleigh, reaches
// the subnormal numbers in a long run, where every operation on them costs as much as a hundred
// ordinary ones; below 2.2e-308 no model carries meaning (docs/decisions.md, "Subnormal numbers:
// flushed to zero while a method runs"). integrate() runs under one; so may a loop of the user's.
// The mode is the calling thread's and is restored when the scope ends.
#include <cstdint>

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

namespace dalembert {

class FlushSubnormals {
 public:
  FlushSubnormals() {
#if defined(__SSE2__)
    saved_ = _mm_getcsr();
    _mm_setcsr(static_cast<unsigned>(saved_) | flush_to_zero | denormals_are_zero);
#elif defined(__aarch64__)
    asm volatile("mrs %0, fpcr" : "=r"(saved_));
    const std::uint64_t flushing = saved_ | (std::uint64_t{1} << 24);  // FZ
    asm volatile("msr fpcr, %0" : : "r"(flushing));
#endif
  }
  ~FlushSubnormals() {
#if defined(__SSE2__)
    _mm_setcsr(static_cast<unsigned>(saved_));
#elif defined(__aarch64__)
    asm volatile("msr fpcr, %0" : : "r"(saved_));
#endif
  }
  FlushSubnormals(const FlushSubnormals&) = delete;
  FlushSubnormals& operator=(const FlushSubnormals&) = delete;

 private:
#if defined(__SSE2__)
  static constexpr unsigned flush_to_zero = 0x8000u;       // MXCSR bit 15: subnormal results are 0
  static constexpr unsigned denormals_are_zero = 0x0040u;  // MXCSR bit 6: subnormal operands are 0
#endif
  std::uint64_t saved_ = 0;
};

}  // namespace dalembert
