/*
 * Transparent huge pages for the simulation state (Linux). A packet-level run of a large
 * fabric touches a few cache lines of thousands of devices, channels, queue pairs and
 * switch buffers per microsecond of simulated time, spread over tens of MiB of heap: with
 * 4 KiB pages nearly every one of those lines also misses the TLB. Backing the heap with
 * 2 MiB pages once the fabric is built removes most of the page walks. Addresses do not
 * change, so results are identical (doc/benchmarks-roce.rst).
 */

#ifndef ASTRA_HUGE_PAGES_H
#define ASTRA_HUGE_PAGES_H

#include <cstdint>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * What CollapseHeapToHugePages did.
 */
struct HugePageResult
{
    uint64_t requestedBytes{0}; //!< 2 MiB-aligned heap bytes asked to be collapsed
    uint64_t collapsedBytes{0}; //!< of which the kernel collapsed (MADV_COLLAPSE succeeded)
};

/**
 * \ingroup astra-sim
 * Marks the process heap (the brk area, where the fabric's objects live, and malloc's
 * anonymous mappings) for transparent
 * huge pages (madvise MADV_HUGEPAGE, so that the pages it gains later are huge too where
 * the kernel can) and collapses its populated 2 MiB-aligned part into huge pages now
 * (MADV_COLLAPSE, Linux 6.1 or later). Call it after building the fabric, before
 * Simulator::Run. A hint: where the kernel refuses (THP disabled, older kernel, no
 * memory), nothing changes but the speed; the result says how much was collapsed.
 * \return bytes requested and collapsed (both 0 where unsupported)
 */
HugePageResult CollapseHeapToHugePages();

/**
 * \ingroup astra-sim
 * True in a build with AddressSanitizer or ThreadSanitizer. There malloc's mappings are the
 * sanitizer's (size-class regions with a few live pages in each 2 MiB range), so collapsing
 * them populates hundreds of MiB and takes seconds (11 s for a 4-NPU run under ASan, minutes
 * on a loaded machine) for no gain: CollapseBuiltHeap skips it in such builds.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitizerBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kSanitizerBuild = true;
#else
constexpr bool kSanitizerBuild = false;
#endif
#else
constexpr bool kSanitizerBuild = false;
#endif

/**
 * \ingroup astra-sim
 * What the programs call once the simulation is built (their --huge-pages):
 * CollapseHeapToHugePages, except in a sanitizer build (kSanitizerBuild), where it does
 * nothing. \return what was done (zeros when skipped)
 */
inline HugePageResult
CollapseBuiltHeap()
{
    return kSanitizerBuild ? HugePageResult() : CollapseHeapToHugePages();
}

} // namespace astra
} // namespace ns3

#endif /* ASTRA_HUGE_PAGES_H */
