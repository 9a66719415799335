#include "analytical-in-switch.h"

#include "ns3/event-batcher.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace ns3
{
namespace astra
{

NS_OBJECT_ENSURE_REGISTERED(AnalyticalInSwitch);

TypeId
AnalyticalInSwitch::GetTypeId()
{
    static TypeId tid = TypeId("ns3::astra::AnalyticalInSwitch")
                            .SetParent<InSwitchAggregation>()
                            .SetGroupName("AstraSim")
                            .AddConstructor<AnalyticalInSwitch>();
    return tid;
}

AnalyticalInSwitch::AnalyticalInSwitch() = default;
AnalyticalInSwitch::~AnalyticalInSwitch() = default;

void
AnalyticalInSwitch::StartOperation(uint32_t id)
{
    const Operation& o = GetOperation(id);
    const uint32_t n = uint32_t(o.op.members->size());
    // one item per member with something to do, then the tree is free
    auto left = std::make_shared<uint32_t>(0);
    std::vector<std::pair<int64_t, uint32_t>> at;
    at.reserve(n);
    for (uint32_t m = 0; m < n; ++m)
    {
        const InSwitchVolume v = InSwitchBytes(o.op.kind, n, m, o.op.root, o.op.bytes);
        if (v.up == 0 && v.down == 0)
        {
            continue;
        }
        at.emplace_back(std::llround(ClosedFormNs(o.op, o.tree, m)), m);
    }
    // in time order, members in index order at equal times
    std::stable_sort(at.begin(), at.end(), [](const auto& a, const auto& b) {
        return a.first < b.first;
    });
    *left = uint32_t(at.size());
    for (const auto& e : at)
    {
        const uint32_t m = e.second;
        const InSwitchVolume v = InSwitchBytes(o.op.kind, n, m, o.op.root, o.op.bytes);
        EventBatcher::Schedule(NanoSeconds(e.first), [this, id, m, v, left]() {
            if (v.up > 0)
            {
                ContributionDone(id, m);
            }
            if (v.down > 0)
            {
                DeliverResult(id, m);
            }
            if (--*left == 0)
            {
                FinishOperation(id);
            }
        });
    }
}

} // namespace astra
} // namespace ns3
