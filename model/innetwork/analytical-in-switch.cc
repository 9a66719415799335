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
    ScheduleMemberEnds(id, std::move(at));
}

} // namespace astra
} // namespace ns3
