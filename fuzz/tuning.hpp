// Fuzzed tunings: the defaults with a fuzzer-chosen subset of fields shrunk to small values
// inside their allowed ranges, so that inputs of a few hundred elements reach the split,
// parted, radix, column and segment paths.
//
// Validity is checked here with set_tuning's rules (the X-macro's ranges and the invariants
// of common/tuning.cpp), not by calling set_tuning: that publishes global state and keeps
// every old snapshot (by design), which would leak once per input. `check_tuning_rules`
// (run once at start-up) compares this check with set_tuning on a few hundred tunings, so
// a new invariant there shows up as a start-up failure here rather than as false reports.
#pragma once

#include <sanitizer/lsan_interface.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/tuning.hpp"
#include "input.hpp"

namespace fuzz {

using axisops::Tuning;

struct Field {
    const char* name;
    int64_t Tuning::*member;
    int64_t value, least, most;  // the default and the allowed range
};

inline const std::vector<Field>& fields() {
    static const std::vector<Field> all = {
#define FUZZ_FIELD(name, value, least, most) \
    {#name, &Tuning::name, int64_t(value), int64_t(least), int64_t(most)},
        AXISOPS_TUNING(FUZZ_FIELD)
#undef FUZZ_FIELD
    };
    return all;
}

inline const Field* field_named(const std::string& name) {
    for (const Field& f : fields())
        if (name == f.name) return &f;
    return nullptr;
}

// set_tuning's rules (common/tuning.cpp's `check`).
inline bool tuning_valid(const Tuning& t) {
    for (const Field& f : fields())
        if (t.*f.member < f.least || t.*f.member > f.most) return false;
    return t.kth_final <= t.select_chunk && t.kth_sample_min <= t.kth_sample_max;
}

// The fields that differ from the defaults, as "name=value, ...".
inline std::string tuning_changes(const Tuning& t) {
    const Tuning d;
    std::string s;
    for (const Field& f : fields())
        if (t.*f.member != d.*f.member)
            s += (s.empty() ? "" : ", ") + std::string(f.name) + "=" + std::to_string(t.*f.member);
    return s.empty() ? "defaults" : s;
}

// The defaults with up to a dozen fields made small: mostly fields from `relevant` (the
// family's), sometimes any field; a value is at most the default or 64, whichever is
// larger (so a field never grows to where a quadratic path would run on thousands of
// elements). Invariants a change broke are repaired (kth_final to select_chunk,
// kth_sample_min to kth_sample_max), so almost every input is valid.
inline Tuning fuzz_tuning(Input& in, const std::vector<const char*>& relevant) {
    Tuning t;
    const int changes = in.chance(40) ? 0 : int(in.below(13));
    for (int c = 0; c < changes; ++c) {
        const Field* f = nullptr;
        if (!relevant.empty() && in.byte() < 200) f = field_named(relevant[in.below(relevant.size())]);
        if (!f) f = &fields()[in.below(fields().size())];
        int64_t v;
        switch (in.byte() % 5) {
            case 0: v = f->least + int64_t(in.below(4)); break;
            case 1: v = f->least + int64_t(in.below(64)); break;
            case 2: v = f->least + int64_t(in.below(512)); break;
            case 3: v = f->least + int64_t(in.below(4096)); break;
            default: v = int64_t(1) << in.below(20); break;
        }
        v = std::min(v, std::max<int64_t>(f->value, 64));
        t.*f->member = std::min(std::max(v, f->least), f->most);
    }
    if (t.kth_final > t.select_chunk) t.kth_final = t.select_chunk;
    if (t.kth_sample_min > t.kth_sample_max) t.kth_sample_min = t.kth_sample_max;
    return t;
}

// The start-up check: this file's rules and set_tuning's agree (set_tuning's snapshots are
// kept forever by design, so LeakSanitizer is told to ignore them).
inline void check_tuning_rules() {
    Rng rng(12345);
    __lsan_disable();
    for (int trial = 0; trial < 400; ++trial) {
        Tuning t;
        const int changes = 1 + int(rng.below(4));
        for (int c = 0; c < changes; ++c) {
            const Field& f = fields()[rng.below(fields().size())];
            const int64_t v = trial % 3 == 0 ? f.least - 1 + int64_t(rng.below(3))
                                             : f.least + int64_t(rng.below(1 << 12));
            t.*f.member = v;
        }
        bool accepted = true;
        try {
            axisops::set_tuning(t);
        } catch (const std::invalid_argument&) {
            accepted = false;
        }
        if (accepted != tuning_valid(t)) {
            std::fprintf(stderr,
                         "fuzz/tuning.hpp: set_tuning %s a tuning this harness calls %s "
                         "(%s): update tuning_valid to set_tuning's rules\n",
                         accepted ? "accepts" : "refuses", accepted ? "invalid" : "valid",
                         tuning_changes(t).c_str());
            std::abort();
        }
    }
    axisops::set_tuning(Tuning());
    __lsan_enable();
}

}  // namespace fuzz

// The snapshot tuning.cpp allocates at start-up is dropped (never freed, by design) when
// check_tuning_rules publishes its first tuning. (Each fuzzer is one translation unit, so
// this definition appears once per binary.)
extern "C" const char* __lsan_default_suppressions() {
    return "leak:_GLOBAL__sub_I_tuning.cpp\n";
}
