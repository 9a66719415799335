#include "node-order-distributed-simulator-impl.h"

#include "ns3/node-order.h"

namespace ns3
{
namespace astra
{

NS_OBJECT_ENSURE_REGISTERED(NodeOrderDistributedSimulatorImpl);

TypeId
NodeOrderDistributedSimulatorImpl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::astra::NodeOrderDistributedSimulatorImpl")
                            .SetParent<DistributedSimulatorImpl>()
                            .SetGroupName("AstraSim")
                            .AddConstructor<NodeOrderDistributedSimulatorImpl>();
    return tid;
}

NodeOrderDistributedSimulatorImpl::NodeOrderDistributedSimulatorImpl() = default;
NodeOrderDistributedSimulatorImpl::~NodeOrderDistributedSimulatorImpl() = default;

bool
NodeOrderDistributedSimulatorImpl::IsExpired(const EventId& id) const
{
    bool decided = false;
    const bool expired = NodeOrderIsExpired(id, uint64_t(Now().GetTimeStep()), decided);
    return decided ? expired : DistributedSimulatorImpl::IsExpired(id);
}

void
NodeOrderDistributedSimulatorImpl::SetScheduler(ObjectFactory schedulerFactory)
{
    CheckNodeOrderScheduler(schedulerFactory, "ns3::astra::NodeOrderDistributedSimulatorImpl");
    DistributedSimulatorImpl::SetScheduler(schedulerFactory);
}

} // namespace astra
} // namespace ns3
