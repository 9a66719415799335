/*
 * CollapseHeapToHugePages (model/common/astra-huge-pages.h):
 * - 12 MiB of heap blocks filled with a pseudo-random pattern read back unchanged after
 *   the call (the collapse moves no address and loses no byte);
 * - what it reports is whole 2 MiB pages, collapsed <= requested, and on a Linux kernel
 *   with transparent huge pages (/sys/kernel/mm/transparent_hugepage/enabled exists and
 *   is not [never]) the heap was asked for (requested > 0);
 * - what it reports as collapsed is there: AnonHugePages of /proc/self/smaps_rollup is at
 *   least the collapsed bytes.
 */

#include "ns3/astra-huge-pages.h"
#include "ns3/test.h"

#include <cstdint>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// Contents of a text file ("" if it cannot be read).
std::string
ReadText(const std::string& path)
{
    std::ifstream f(path);
    std::ostringstream os;
    os << f.rdbuf();
    return f ? os.str() : std::string();
}

/// The collapse keeps the heap's contents and reports whole huge pages.
class HugePagesCollapseTestCase : public TestCase
{
  public:
    HugePagesCollapseTestCase()
        : TestCase("heap contents unchanged, whole 2 MiB pages reported, present in smaps")
    {
    }

  private:
    void DoRun() override
    {
        constexpr uint32_t kBlocks = 24576; // x 512 B = 12 MiB, below malloc's mmap threshold
        constexpr uint32_t kWords = 64;
        std::vector<std::unique_ptr<uint64_t[]>> blocks;
        blocks.reserve(kBlocks);
        uint64_t x = 0x9E3779B97F4A7C15ULL;
        auto next = [&x]() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            return x;
        };
        for (uint32_t b = 0; b < kBlocks; ++b)
        {
            blocks.emplace_back(new uint64_t[kWords]);
            for (uint32_t w = 0; w < kWords; ++w)
            {
                blocks.back()[w] = next();
            }
        }
        const astra::HugePageResult r = astra::CollapseHeapToHugePages();
        x = 0x9E3779B97F4A7C15ULL;
        uint64_t wrong = 0;
        for (uint32_t b = 0; b < kBlocks; ++b)
        {
            for (uint32_t w = 0; w < kWords; ++w)
            {
                wrong += blocks[b][w] != next() ? 1 : 0;
            }
        }
        NS_TEST_ASSERT_MSG_EQ(wrong, 0, "heap words changed by the collapse");
        constexpr uint64_t kHuge = uint64_t(2) << 20;
        NS_TEST_ASSERT_MSG_EQ(r.requestedBytes % kHuge, 0, "requested is whole 2 MiB pages");
        NS_TEST_ASSERT_MSG_EQ(r.collapsedBytes % kHuge, 0, "collapsed is whole 2 MiB pages");
        NS_TEST_ASSERT_MSG_EQ((r.collapsedBytes <= r.requestedBytes),
                              true,
                              "collapsed " << r.collapsedBytes << " > requested "
                                           << r.requestedBytes);
        const std::string thp = ReadText("/sys/kernel/mm/transparent_hugepage/enabled");
        if (!thp.empty() && thp.find("[never]") == std::string::npos)
        {
            // 12 MiB of heap hold at least one aligned 2 MiB range
            NS_TEST_ASSERT_MSG_GT(r.requestedBytes, 0, "THP available but nothing requested");
        }
        if (r.collapsedBytes > 0)
        {
            const std::string smaps = ReadText("/proc/self/smaps_rollup");
            const std::size_t at = smaps.find("AnonHugePages:");
            NS_TEST_ASSERT_MSG_NE(at, std::string::npos, "no AnonHugePages in smaps_rollup");
            const uint64_t kib = std::stoull(smaps.substr(at + 14));
            NS_TEST_ASSERT_MSG_GT_OR_EQ(kib * 1024,
                                        r.collapsedBytes,
                                        "fewer huge pages than reported collapsed");
        }
    }
};

/// Registration.
class HugePagesTestSuite : public TestSuite
{
  public:
    HugePagesTestSuite()
        : TestSuite("astra-sim-huge-pages", UNIT)
    {
        AddTestCase(new HugePagesCollapseTestCase(), TestCase::QUICK);
    }
};

HugePagesTestSuite g_hugePagesTestSuite; //!< registration

} // namespace
