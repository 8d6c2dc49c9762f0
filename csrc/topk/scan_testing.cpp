// Test hooks for the scan's internals (tests/test_cpu_scan.py), not part of axisops' API: the
// bound selections on given values, one segment's block maxima, and one sequence's
// candidates with what the scan did to find them (the baseline level's code: this file is
// compiled once). Arguments are checked so that a wrong call raises ValueError instead of
// reading outside an array.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "topk/scan.hpp"

namespace nb = nanobind;

namespace axisops {
namespace {

using namespace AXISOPS_ISA_NS;

using Raw = nb::ndarray<nb::ro, nb::device::cpu, nb::ndim<1>>;

[[noreturn]] void fail(const std::string& what) {
    throw std::invalid_argument("axisops._core scan hooks: " + what);
}

// Calls f(U{}) for the unsigned type of `vals`' width.
template <class F>
auto by_width(const Raw& vals, F&& f) {
    if (vals.dtype().code != uint8_t(nb::dlpack::dtype_code::UInt)) fail("values must be unsigned");
    switch (vals.itemsize()) {
        case 1: return f(uint8_t{});
        case 2: return f(uint16_t{});
        case 4: return f(uint32_t{});
        case 8: return f(uint64_t{});
        default: fail("unsupported width");
    }
}

template <class U>
std::vector<U> copy_of(const Raw& vals, int64_t m) {
    const U* p = static_cast<const U*>(vals.data());
    std::vector<U> out(static_cast<size_t>(m));
    for (int64_t i = 0; i < m; ++i) out[size_t(i)] = p[i * vals.stride(0)];
    return out;
}

uint64_t radix_bound(const Raw& vals, int64_t k) {
    const int64_t m = int64_t(vals.shape(0));
    if (k < 1 || k > m) fail("need 1 <= k <= m");
    return by_width(vals, [&](auto u) -> uint64_t {
        using U = decltype(u);
        const std::vector<U> v = copy_of<U>(vals, m);
        std::vector<int32_t> counts((size_t(1) << scan_detail::RADIX_BITS) + 2);
        return scan_detail::radix_bound(v.data(), m, k, counts.data());
    });
}

uint64_t kth_bound(const Raw& vals, int64_t m, int64_t k) {
    if (m < 1 || m > int64_t(vals.shape(0)) || k < 1 || k > m) fail("need 1 <= k <= m <= size");
    return by_width(vals, [&](auto u) -> uint64_t {
        using U = decltype(u);
        const std::vector<U> v = copy_of<U>(vals, m);
        std::vector<U> scratch(size_t(k + m / scan_detail::GROUP));
        std::vector<int32_t> counts((size_t(1) << scan_detail::RADIX_BITS) + 2);
        return scan_detail::kth_bound(v.data(), m, k, scratch.data(), counts.data());
    });
}

template <class U>
nb::list as_list(const U* p, int64_t count) {
    nb::list out;
    for (int64_t i = 0; i < count; ++i) out.append(p[i]);
    return out;
}

// Calls f(KeyT{}) for the key type of the raw 1-D x and `kind`.
template <class F>
void by_key(const Raw& x, int kind, F&& f) {
    if (x.dtype().code != uint8_t(nb::dlpack::dtype_code::UInt)) fail("x must be a raw view");
    if (kind < 0 || kind > int(Kind::Bool)) fail("unknown key kind");
    if (!with_key(int(x.itemsize()), Kind(kind), f)) fail("unsupported key type");
}

// (candidate indices, their keys, stats) of one scan of x (any stride).
nb::tuple sequence(const Raw& x, int kind, int64_t k, bool largest, int64_t segment,
                   int64_t band_rows) {
    const int64_t n = int64_t(x.shape(0));
    if (k < 1 || k > n || segment < 0 || band_rows < 0) fail("bad k, segment or band_rows");
    nb::tuple result;
    by_key(x, kind, [&](auto key, auto sign) {
        using KeyT = decltype(key);
        using U = typename KeyT::type;
        const int64_t stride = int64_t(x.stride(0));
        const Tuning tune = current_tuning();
        const int64_t seg = scan_detail::segment_length(tune, segment, stride, int(sizeof(U)));
        scan_detail::Scanner<KeyT> scanner(tune, n, stride, k, seg,
                                           U((largest ? U(0) : U(~U(0))) ^ sign), band_rows);
        const int64_t c = scanner.sequence(static_cast<const U*>(x.data()));
        const scan_detail::ScanStats& s = scanner.stats();
        nb::dict stats;
        stats["sampled"] = s.sampled;
        stats["hoped"] = s.hoped;
        stats["rescans"] = s.rescans;
        stats["banded"] = s.banded;
        stats["compactions"] = s.compactions;
        stats["rises"] = s.rises;
        stats["all_largest"] = s.all_largest;
        result = nb::make_tuple(as_list(scanner.indices(), c), as_list(scanner.keys(), c), stats);
    });
    return result;
}

// (blocks, rows, block maxima, each band's block maxima) of the segment x[:m] (any stride).
nb::tuple maxima(const Raw& x, int kind, int64_t m, int64_t band_rows) {
    if (m < 1 || m > int64_t(x.shape(0)) || band_rows < 1) fail("bad m or band_rows");
    nb::tuple result;
    by_key(x, kind, [&](auto key, auto sign) {
        using KeyT = decltype(key);
        using U = typename KeyT::type;
        const int64_t stride = int64_t(x.stride(0));
        scan_detail::Scanner<KeyT> scanner(current_tuning(), m, stride, 1, m, U(sign), band_rows);
        std::vector<U> bmax(size_t(m / scan_detail::BLOCK + 64));
        const scan_detail::Layout L =
            scanner.maxima(static_cast<const U*>(x.data()), 0, m, bmax.data(), band_rows);
        const int64_t nb_ = scan_detail::band_count(L.rows, band_rows);
        result = nb::make_tuple(L.blocks, L.rows, as_list(bmax.data(), L.blocks),
                                nb_ > 1 ? as_list(scanner.bands(), nb_ * L.blocks) : nb::list());
    });
    return result;
}

}  // namespace

void bind_scan_testing(nb::module_& m) {
    m.def("_scan_radix_bound", &radix_bound, nb::arg("vals"), nb::arg("k"));
    m.def("_scan_kth_bound", &kth_bound, nb::arg("vals"), nb::arg("m"), nb::arg("k"));
    m.def("_scan_sequence", &sequence, nb::arg("x"), nb::arg("kind"), nb::arg("k"),
          nb::arg("largest"), nb::arg("segment"), nb::arg("band_rows"));
    m.def("_scan_maxima", &maxima, nb::arg("x"), nb::arg("kind"), nb::arg("m"),
          nb::arg("band_rows"));
    // The scan's fixed constants (its size switches are in the tuning: _tuning()).
    m.attr("_SCAN_CONSTANTS") = nb::make_tuple(
        nb::make_tuple("BLOCK", scan_detail::BLOCK), nb::make_tuple("SORTED_K", SORTED_K),
        nb::make_tuple("GROUP", scan_detail::GROUP),
        nb::make_tuple("RADIX_BITS", scan_detail::RADIX_BITS),
        nb::make_tuple("BOUND_SLACK", scan_detail::BOUND_SLACK));
}

}  // namespace axisops
