/*
 * The in-switch model of the packet-level RoCE backend: reduction trees run
 * on AggregationEngines of the fabric's switches (aggregation-engine.h), and
 * the NPUs take part over reliable RoCE connections to their first-hop
 * engine (real BTH/RETH/ImmDt frames, PSNs, ACK/NAK, go-back-N, PFC, ECN and
 * the hosts' congestion control). Built by AggregationHelper.
 */

#ifndef ASTRA_ROCE_IN_SWITCH_H
#define ASTRA_ROCE_IN_SWITCH_H

#include "aggregation-engine.h"
#include "in-switch-aggregation.h"

#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-queue-pair.h"

#include <functional>
#include <map>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * Packet-level in-switch operations. Per operation every member sends the
 * slot sequences it contributes to its first-hop engine (a WRITE with
 * immediate data per sequence: SlotPayload bytes and one 32-bit value) and
 * may send sequence q only after it got the down message of sequence
 * q - TreeSlots (its window: no switch ever lacks a slot, so slot exhaustion
 * slows a tree to about TreeSlots x SlotPayload per loop time and never
 * drops or stalls it). Engines combine the values (32-bit integer sums) and
 * send results down; every member checks its results (a built-in value
 * pattern whose sums are known, or a test's own values through
 * SetValueFunction / SetResultCallback).
 */
class RoceInSwitch : public InSwitchAggregation, private RdmaQpConsumer
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// The value member \p member contributes for sequence \p seq of operation \p key.
    using ValueFunction = std::function<uint32_t(uint64_t key, uint32_t member, uint64_t seq)>;
    /// A member received sequence \p seq's result \p value (key, member, seq, value).
    using ResultCallback =
        std::function<void(uint64_t key, uint32_t member, uint64_t seq, uint32_t value)>;

    /// Counters of the NPUs' side.
    struct HostStats
    {
        uint64_t contributions{0}; //!< slot sequences posted by NPUs
        uint64_t results{0};       //!< data down messages received by NPUs
        uint64_t credits{0};       //!< empty down messages received by NPUs
        uint64_t valuesChecked{0}; //!< results checked against the built-in pattern
        uint64_t valueErrors{0};   //!< results that did not match it
    };

    RoceInSwitch();
    ~RoceInSwitch() override;

    /**
     * Attach the fabric: the NPUs' host stacks (index = NPU id) and the
     * engine of every aggregating switch.
     * \param npus host stacks of the NPUs
     * \param engines engines by switch node id
     */
    void SetFabric(const std::vector<Ptr<RdmaHostStack>>& npus,
                   const std::map<uint32_t, Ptr<AggregationEngine>>& engines);

    /**
     * Contribute these values instead of the built-in pattern (the built-in
     * check is then off; see SetResultCallback).
     * \param f the values
     */
    void SetValueFunction(ValueFunction f);
    /// Receive every result a member gets \param cb the callback
    void SetResultCallback(ResultCallback cb);

    /**
     * \return the built-in value of member \p member for sequence \p seq of
     * operation \p key: h(key, seq) x (member + 1) mod 2^32, h odd, so that the
     * sum over n members is h x n(n+1)/2 and a missing, doubled or misplaced
     * contribution changes it
     */
    static uint32_t PatternValue(uint64_t key, uint32_t member, uint64_t seq);

    /// \return the NPUs' counters
    const HostStats& GetHostStats() const;
    /// \return the engine of a switch (null if none) \param sw switch node id
    Ptr<AggregationEngine> GetEngine(uint32_t sw) const;

    /// Check the attributes against the fabric (SlotPayload within the hosts' Mtu, ...)
    /// \return "" or a description
    std::string ValidateFabric() const;

  protected:
    void DoDispose() override;
    void StartOperation(uint32_t id) override;
    void TreeBuilt(uint32_t tree) override;
    uint32_t DefaultSlotPayload() const override;

  private:
    /// One member of the operation running on a tree.
    struct Host
    {
        Ptr<RdmaQueuePair> qp;      //!< the NPU's end of its connection to its first-hop engine
        uint64_t next{0};           //!< index of its next contribution
        uint64_t contributions{0};  //!< contributions of the operation
        uint64_t acked{0};          //!< contributions acknowledged
        uint64_t received{0};       //!< down messages received
        uint64_t base{0};           //!< lowest sequence not yet received
        std::vector<uint64_t> seen; //!< received sequences in [base, base + window) (ring)
        bool resultDone{false};     //!< its result was delivered
        bool sendDone{false};       //!< its contribution completed
        bool done{false};           //!< both
    };

    /// A tree's packet-level state.
    struct TreeRun
    {
        std::vector<Host> hosts;          //!< per member
        std::vector<uint32_t> engineTree; //!< per tree node: its index in that node's engine
        int32_t op{-1};                   //!< operation running, or -1
        uint32_t serial{0};               //!< its serial (24 bits)
        AggregationSchedule sched;        //!< its schedule
        uint32_t done{0};                 //!< members done
    };

    void TxComplete(RdmaQueuePair& qp, const RdmaMessageInfo& info) override;
    void RxComplete(RdmaQueuePair& qp, const RdmaMessageInfo& info) override;

    /// Post member \p m's contributions its window allows \param tree the tree \param m member
    void Pump(uint32_t tree, uint32_t m);
    /// \return whether member \p m has received sequence \p q \param h its state \param q seq
    bool Seen(const Host& h, uint64_t q) const;
    /// Member \p m may be done \param tree the tree \param m member
    void MaybeDone(uint32_t tree, uint32_t m);
    /// \return (tree, member) of an NPU-side QP, or tree UINT32_MAX \param qp the QP
    std::pair<uint32_t, uint32_t> RoleOf(const RdmaQueuePair& qp) const;

    std::vector<Ptr<RdmaHostStack>> m_npus;               //!< NPU host stacks
    std::map<uint32_t, Ptr<AggregationEngine>> m_engines; //!< by switch node id
    std::vector<TreeRun> m_runs;                          //!< per tree
    /// per NPU: QP number -> (tree << 32 | member) + 1 (0: not an in-switch QP)
    std::vector<std::vector<uint64_t>> m_roles;
    ValueFunction m_value;   //!< user values (or the pattern)
    ResultCallback m_result; //!< user result callback
    HostStats m_hostStats;   //!< counters
    uint8_t m_priority{3};   //!< data priority of the connections
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_ROCE_IN_SWITCH_H */
