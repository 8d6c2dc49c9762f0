// A mismatch report: the decoded request, then what differed, then abort() (libFuzzer
// saves the input as crash-<sha1> and stops).
#pragma once

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "common/tuning.hpp"

namespace fuzz {

struct Report {
    std::string request;  // "topk float32 x shape ...; k ...; tuning ...", as decoded

    void add(const std::string& what) { request += (request.empty() ? "" : "; ") + what; }

    // Prints the decoded request before the call when FUZZ_PRINT is set (to describe a
    // crash input: FUZZ_PRINT=1 fuzz/build/fuzz_topk crash-...).
    void announce() const {
        static const bool print = std::getenv("FUZZ_PRINT") != nullptr;
        if (print) std::fprintf(stderr, "request: %s\n", request.c_str());
    }

    [[noreturn]] void fail(const std::string& what) const {
        std::fprintf(stderr, "\n==== axisops fuzz MISMATCH ====\nrequest: %s\nfirst difference: %s\n\n",
                     request.c_str(), what.c_str());
        std::fflush(stderr);
        std::abort();
    }
};

// Runs the core's call `f`: a request the bindings accept must not throw (they would turn
// the exception into a Python error), so an exception is reported like a mismatch.
template <class F>
auto call(const Report& rep, F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (const std::exception& e) {
        rep.fail(std::string("the core threw: ") + e.what());
    }
}

inline std::string hex(uint64_t v) {
    char s[24];
    std::snprintf(s, sizeof s, "0x%" PRIx64, v);
    return s;
}

// At exit: which of the family's paths (common/tuning.hpp's Path; those whose names start
// with one of `prefixes`) the run's calls took and which they never reached.
inline void print_paths(const char* family, const std::vector<std::string>& prefixes) {
    const uint64_t seen = axisops::paths_seen();
    const std::vector<std::string> names = axisops::path_names();
    std::string hit, missed;
    for (size_t i = 0; i < names.size(); ++i) {
        bool ours = false;
        for (const std::string& p : prefixes) ours = ours || names[i].compare(0, p.size(), p) == 0;
        if (!ours) continue;
        ((seen >> i) & 1 ? hit : missed) += " " + names[i];
    }
    std::fprintf(stderr, "%s paths reached:%s\n%s paths not reached:%s\n", family, hit.c_str(),
                 family, missed.empty() ? " none" : missed.c_str());
}

}  // namespace fuzz
