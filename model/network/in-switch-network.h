/*
 * The optional in-switch (in-network aggregation) interface of a network
 * backend: collectives whose reduction or replication runs in the switches of
 * a dimension (SHARP-like reduction trees on a scale-out fabric, NVLS-like
 * reduction in a scale-up switch). A backend offers it through
 * NetworkBackend::GetInSwitchInterface(); the system layer queries it once at
 * set-up, like FixedTimeNetwork. The implementations (analytical closed form,
 * flow-level, packet-level engine) live in model/innetwork
 * (doc/in-network.rst).
 */

#ifndef ASTRA_IN_SWITCH_NETWORK_H
#define ASTRA_IN_SWITCH_NETWORK_H

#include "net-message.h"
#include "network-backend.h"

#include "ns3/object.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

/// What one in-switch operation computes (one phase of a collective on one dimension).
enum class InSwitchOpKind : uint8_t
{
    ALL_REDUCE,     //!< every member contributes S, every member receives the sum (S)
    REDUCE_SCATTER, //!< every member contributes S, member r receives shard r of the sum
    ALL_GATHER,     //!< every member contributes its S, every member receives the others' data
    REDUCE,         //!< every member contributes S, the root receives the sum
    BROADCAST       //!< the root contributes S, every other member receives it
};

/// \return e.g. "ALL_REDUCE" \param k the kind
const char* InSwitchOpName(InSwitchOpKind k);

/// Bytes one member of an in-switch operation sends up and receives down.
struct InSwitchVolume
{
    uint64_t up{0};   //!< bytes the member contributes
    uint64_t down{0}; //!< payload bytes the member receives (its result)
};

/**
 * \return the bytes member \p rank of \p n sends and receives in an operation
 * of \p bytes per member (ALL_GATHER: each member's input; REDUCE_SCATTER:
 * its shard is max(1, bytes / n), the system layer's output size)
 * \param kind the operation
 * \param n member count
 * \param rank the member's index
 * \param root the root's index (REDUCE, BROADCAST)
 * \param bytes the operation's bytes per member
 */
InSwitchVolume InSwitchBytes(InSwitchOpKind kind,
                             uint32_t n,
                             uint32_t rank,
                             uint32_t root,
                             uint64_t bytes);

/**
 * \ingroup astra-sim
 * One in-switch operation as every member describes it (identically).
 */
struct InSwitchOp
{
    uint64_t key{0}; //!< identifies the operation on every member (system layer: its tag)
    InSwitchOpKind kind{InSwitchOpKind::ALL_REDUCE};      //!< what it computes
    int32_t dim{-1};                                      //!< the dimension its members span
    std::shared_ptr<const std::vector<uint32_t>> members; //!< ordered NPU ids
    uint32_t root{0};                                     //!< member index of the root
    uint64_t bytes{0};                                    //!< bytes per member (see InSwitchBytes)
    TrafficClass tclass{TrafficClass::COLLECTIVE};        //!< traffic class of its packets
};

/**
 * \ingroup astra-sim
 * Optional interface of a backend that can run collectives in the switches.
 * An implementation is an ns-3 Object aggregated to the backend
 * (backend->AggregateObject(impl)); NetworkBackend::GetInSwitchInterface()
 * finds it.
 *
 * Protocol: at set-up the system layer checks each dimension configured with
 * the inSwitch algorithm (CanAggregate), and the first member of each
 * collective instance asks for the group's tree (Reserve, memoized per group
 * and dimension: every member gets the same answer; a refusal means the
 * group runs the host algorithm). Then every member of each operation calls
 * Join once: its result arrives as sink->MessageDelivered(msg) with msg.src =
 * msg.dst = the member, msg.bytes = its InSwitchVolume::down and msg.tag =
 * op.key; with notifySent, sink->MessageSent(msg, cookie) follows when its
 * own contribution is complete. Members without a result (a REDUCE's
 * non-roots, a BROADCAST's root) get no delivery.
 */
class InSwitchNetwork : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    ~InSwitchNetwork() override;

    /**
     * \return true if dimension \p dim has switches that aggregate
     * \param dim the dimension
     * \param why receives the reason when false (may be null)
     */
    virtual bool CanAggregate(uint32_t dim, std::string* why) const = 0;

    /**
     * Ask for a reduction tree for a group on a dimension. Memoized per
     * (dimension, members): the first call decides.
     * \param dim the dimension
     * \param members the group's members on that dimension (sorted NPU ids)
     * \param why receives the reason of a refusal (may be null)
     * \return true if the group's in-switch operations run on a tree; false:
     * no tree or resources for the group, run the host algorithm
     * \throw InputError for a configuration that can never give a tree
     */
    virtual bool Reserve(uint32_t dim, const std::vector<uint32_t>& members, std::string* why) = 0;

    /**
     * A member takes part in an operation (see the class description).
     * \param op the operation
     * \param member the member's index in op.members
     * \param sink receiver of the completions
     * \param cookie passed to MessageSent
     * \param notifySent whether MessageSent is wanted
     */
    virtual void Join(const InSwitchOp& op,
                      uint32_t member,
                      MessageSink* sink,
                      uint64_t cookie,
                      bool notifySent) = 0;

    /**
     * \return operations running on their trees (data in flight; an operation
     * still waiting for a member or for resources is not counted, so that
     * hang detection reports it)
     */
    virtual uint64_t GetPendingOperations() const = 0;

    /**
     * \return a counter that grows while in-switch operations make progress
     * (bytes accepted by the fabric, results delivered); the run monitor's
     * hang detection adds it to the backend's own
     */
    virtual uint64_t GetProgressCounter() const = 0;
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_IN_SWITCH_NETWORK_H */
