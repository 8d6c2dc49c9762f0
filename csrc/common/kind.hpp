// How the bits of an element order: the key kinds (common/keys.hpp maps each to order keys).
// The Python side reads the codes from the module (KINDS), never copies them.
#pragma once

namespace axisops {

// How the bits of an element become a key; exported to Python as KINDS.
enum class Kind : int { Unsigned = 0, Signed = 1, Float = 2, BFloat = 3, Bool = 4 };
inline const char* const KIND_NAMES[] = {"unsigned", "signed", "float", "bfloat", "bool"};

}  // namespace axisops
