// The errors a kernel raises on its own (the bindings check arguments before any kernel
// runs; these are what no argument check can foresee).
#pragma once

#include <stdexcept>

namespace axisops {

// Raised when a kernel finds that two reads of the input disagree: another thread wrote to
// it during the call. Kernels never let that make them read or write outside an array;
// where they can tell, they raise this (a RuntimeError in Python) instead of returning a
// meaningless result.
struct InputChanged : std::runtime_error {
    InputChanged()
        : std::runtime_error(
              "axisops: the input changed while it was read (another thread wrote to it "
              "during the call)") {}
};

[[noreturn]] inline void input_changed() { throw InputChanged(); }

}  // namespace axisops
