/*
 * ns-3's granted-time-window distributed simulator in node event order
 * (ns3/node-order.h). Built only with ns-3's mpi module. ns-3.37 does not install
 * distributed-simulator-impl.h: the module's CMakeLists adds src/mpi/model of the ns-3
 * tree to this library's include path, and no public header of the module includes it.
 */

#include "distributed-simulator-impl.h"

#include "ns3/node-order.h"
#include "ns3/simulator.h"

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * ns3::DistributedSimulatorImpl (granted-time windows, its synchronisation unchanged) for
 * astra::NodeOrderScheduler: IsExpired asks the scheduler about events of the current
 * time stamp, which do not run in uid order.
 */
class NodeOrderDistributedSimulatorImpl : public DistributedSimulatorImpl
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    NodeOrderDistributedSimulatorImpl();
    ~NodeOrderDistributedSimulatorImpl() override;

    bool IsExpired(const EventId& id) const override;
    /// Only a NodeOrderScheduler (InputError otherwise) \param schedulerFactory the type
    void SetScheduler(ObjectFactory schedulerFactory) override;
};

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

/**
 * astra::Distributed::BoundLookAhead's MPI part.
 * \param lookahead the window of ns-3's distributed simulator (its BoundLookAhead)
 */
void
BoundMpiLookAhead(Time lookahead)
{
    Ptr<DistributedSimulatorImpl> impl =
        DynamicCast<DistributedSimulatorImpl>(Simulator::GetImplementation());
    if (impl)
    {
        impl->BoundLookAhead(lookahead);
    }
}

} // namespace astra
} // namespace ns3
