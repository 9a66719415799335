/*
 * Closed forms of collectives (collective-closed-form.h).
 */

#include "collective-closed-form.h"

#include <algorithm>

namespace ns3
{
namespace astra
{

double
HierarchicalAllReduceNs(const std::vector<DimensionSpec>& dims,
                        uint64_t bytes,
                        double overhead,
                        uint32_t frameBytes)
{
    // localBWAware order: highest bandwidth first (ties by index)
    std::vector<DimensionSpec> order = dims;
    std::stable_sort(order.begin(),
                     order.end(),
                     [](const DimensionSpec& a, const DimensionSpec& b) {
                         return a.bandwidthGBps > b.bandwidthGBps;
                     });
    double t = 0;
    double shard = double(bytes);
    for (const auto& d : order)
    {
        if (d.npus <= 1)
        {
            continue;
        }
        const double n = d.npus;
        const double hops = d.type == DimType::SWITCH ? 2.0 : 1.0;
        const double bw = GBpsToBytesPerNs(d.bandwidthGBps);
        // 2 (n - 1) ring steps: bandwidth term, then per step the data's and the ACK's
        // path latency and one frame of store-and-forward per switch on the path
        t += 2.0 * (n - 1) / n * shard * overhead / bw;
        t += 2.0 * (n - 1) * (2.0 * hops * d.latencyNs + (hops - 1) * frameBytes / bw);
        shard /= n;
    }
    return t;
}

} // namespace astra
} // namespace ns3
