/*
 * ns-3's granted-time-window distributed simulator in node event order
 * (ns3/node-order.h). Built only with ns-3's mpi module.
 */

#ifndef NODE_ORDER_DISTRIBUTED_SIMULATOR_IMPL_H
#define NODE_ORDER_DISTRIBUTED_SIMULATOR_IMPL_H

#include "ns3/distributed-simulator-impl.h"

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

} // namespace astra
} // namespace ns3

#endif /* NODE_ORDER_DISTRIBUTED_SIMULATOR_IMPL_H */
