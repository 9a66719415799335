/*
 * What the three in-switch models share: reduction trees per group and
 * dimension (aggregation-tree.h), the switches' finite resources (slots,
 * trees per switch and per port) with the policy for a group that cannot get
 * them (fall back to the host algorithm at set-up, SHARP-like, or wait for
 * them, SwitchML-like), the operations members join, and the reports.
 * Subclasses move the data: AnalyticalInSwitch (closed form),
 * FlowInSwitch (flows on every tree link) and RoceInSwitch (the packet-level
 * aggregation engine on RdmaSwitch nodes).
 */

#ifndef ASTRA_IN_SWITCH_AGGREGATION_H
#define ASTRA_IN_SWITCH_AGGREGATION_H

#include "aggregation-tree.h"

#include "ns3/data-rate.h"
#include "ns3/in-switch-network.h"
#include "ns3/nstime.h"
#include "ns3/topology.h"
#include "ns3/traced-callback.h"

#include <deque>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * Base of the in-switch models (see the file comment). Attributes (every
 * model has them, so that the three agree):
 *
 * - Slots: aggregation slots per switch; TreeSlots: slots a tree takes at
 *   each of its switches (its window: members keep at most this many slot
 *   sequences in flight); SlotPayload: payload bytes per slot (one packet;
 *   0: RdmaHostStack::Mtu);
 * - TreesPerSwitch, TreesPerPort (0: no limit): trees a switch, or one of
 *   its ports, can hold at once; AggregationPorts (0: all): switch ports
 *   that can take part in one tree;
 * - NoResources: "fallback" (a group that gets no tree when it first asks
 *   runs the host algorithm; granted trees are kept, SHARP-like) or "wait"
 *   (trees are leased per operation and released when idle; an operation
 *   waits for its resources, SwitchML-like);
 * - ReductionRate (0: the port's line rate): bytes per second a switch
 *   combines per port; EngineLatency: time one pass through a switch's
 *   aggregation engine adds.
 *
 * Operations on one tree run one at a time, in the order they become ready
 * (every contributor joined); a straggling member therefore delays all.
 */
class InSwitchAggregation : public InSwitchNetwork
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// What a group without a tree or slots does.
    enum class Policy : uint8_t
    {
        FALLBACK, //!< run the host algorithm (decided when the group first asks)
        WAIT      //!< wait until another tree releases the resources
    };

    /// Trace signature of OperationStart / OperationEnd: (operation key, tree index).
    typedef void (*OperationTracedCallback)(uint64_t key, uint32_t tree);

    /// Counters for reports and tests.
    struct Stats
    {
        uint64_t trees{0};            //!< trees granted (fallback policy) or built (wait)
        uint64_t fallbacks{0};        //!< groups that got no tree (fallback policy)
        uint64_t operations{0};       //!< operations run on trees
        uint64_t waits{0};            //!< operations that waited for resources
        Time waitTime{0};             //!< total time operations waited for resources
        uint64_t bytesUp{0};          //!< payload bytes members contributed
        uint64_t bytesDown{0};        //!< payload bytes members received
        uint64_t resultsDelivered{0}; //!< member results delivered
    };

    InSwitchAggregation();
    ~InSwitchAggregation() override;

    /**
     * Use a topology (its dimensions marked in_switch aggregate).
     * \param topo the topology
     */
    void SetTopology(std::shared_ptr<const Topology> topo);
    /// \return the topology
    std::shared_ptr<const Topology> GetTopology() const;

    /**
     * Check the attributes.
     * \return "" if valid, else a description naming the attribute and value
     */
    std::string Validate() const;

    // InSwitchNetwork
    bool CanAggregate(uint32_t dim, std::string* why) const override;
    bool Reserve(uint32_t dim, const std::vector<uint32_t>& members, std::string* why) override;
    void Join(const InSwitchOp& op,
              uint32_t member,
              MessageSink* sink,
              uint64_t cookie,
              bool notifySent) override;
    uint64_t GetPendingOperations() const override;
    uint64_t GetProgressCounter() const override;

    /// \return the policy
    Policy GetPolicy() const;
    /// \return slots a tree takes at each switch (its window)
    uint32_t GetTreeSlots() const;
    /// \return payload bytes per slot (SlotPayload, or the hosts' Mtu when 0)
    uint32_t GetSlotPayload() const;
    /// \return ReductionRate in bytes per ns (0: line rate)
    double GetReductionBytesPerNs() const;
    /// \return EngineLatency in ns
    double GetEngineLatencyNs() const;

    /// \return trees built so far
    uint32_t GetTreeCount() const;
    /// \return tree \p i \param i index
    const AggregationTree& GetTree(uint32_t i) const;
    /// \return the counters
    const Stats& GetStats() const;

    /**
     * \return the payload bytes an operation puts on one tree edge
     * \param op the operation
     * \param tree the tree
     * \param node the child end of the edge: a node index, or nodes.size() + m
     *        for member m's own link
     * \param up the upward direction (else downward)
     */
    static uint64_t EdgeBytes(const InSwitchOp& op,
                              const AggregationTree& tree,
                              uint32_t node,
                              bool up);

    /**
     * \return slot sequences an operation runs (packets of SlotPayload bytes
     * per member's share)
     * \param op the operation
     * \param payload bytes per slot
     */
    static uint64_t Sequences(const InSwitchOp& op, uint32_t payload);

    /**
     * The uncongested closed form of this model (doc/in-network.rst):
     * up + down propagation + engine passes + max(the slowest tree edge's
     * bytes / rate, sequences x loop time / TreeSlots).
     * \param op the operation
     * \param tree the tree index
     * \param member the member
     * \return ns from the start to the member's result (or, without result,
     * to the end of its contribution)
     */
    double ClosedFormNs(const InSwitchOp& op, uint32_t tree, uint32_t member) const;

    /**
     * \return the latency part of ClosedFormNs: the slowest contributor's
     * propagation to the root, the root's to \p member and the engine passes
     * (a member without a result: its own propagation up)
     * \param op the operation
     * \param tree the tree index
     * \param member the member
     */
    double LatencyNs(const InSwitchOp& op, uint32_t tree, uint32_t member) const;

    /**
     * \return the streaming part of ClosedFormNs (ns): the slowest tree
     * edge's bytes over its rate (ReductionRate-limited), or the slot
     * sequences x loop time / TreeSlots if that is longer
     * \param op the operation
     * \param tree the tree index
     */
    double StreamNs(const InSwitchOp& op, uint32_t tree) const;

    /**
     * \return the time one slot sequence takes from a member to the root
     * and back when the tree is idle (ns): propagation, one packet's
     * serialization per link each way and the engine passes
     * \param tree the tree index
     */
    double LoopTimeNs(uint32_t tree) const;

    /// Print the summary line(s) (trees, operations, fallbacks, waits) \param os stream
    void PrintSummary(std::ostream& os) const;

  protected:
    void DoDispose() override;

    /// One member of a running operation.
    struct Member
    {
        uint64_t cookie{0};     //!< Join's cookie
        bool notifySent{false}; //!< Join's notifySent
        bool joined{false};     //!< Join was called
        bool delivered{false};  //!< its result was delivered
        bool sent{false};       //!< its contribution completed
    };

    /// One operation.
    struct Operation
    {
        InSwitchOp op;                  //!< the description
        uint32_t tree{0};               //!< its tree
        std::vector<Member> members;    //!< per member
        MessageSink* sink{nullptr};     //!< where completions go
        uint32_t joined{0};             //!< members that joined
        uint32_t contributors{0};       //!< members with bytes to contribute
        uint32_t contributorsJoined{0}; //!< of those, joined
        uint32_t serial{0};             //!< per-tree operation number (wire identity)
        bool started{false};            //!< StartOperation called
        bool finished{false};           //!< FinishOperation called
        Time readyAt{0};                //!< when every contributor had joined
        bool inUse{false};              //!< slot in use
    };

    /**
     * Move the data of an operation (subclasses). Report with
     * DeliverResult / ContributionDone per member and FinishOperation.
     * \param id the operation
     */
    virtual void StartOperation(uint32_t id) = 0;

    /// A tree was built (subclasses set up what it needs) \param tree the index
    virtual void TreeBuilt(uint32_t tree);

    /**
     * \return the payload of one slot when SlotPayload is 0 (default:
     * RdmaHostStack::Mtu's default value)
     */
    virtual uint32_t DefaultSlotPayload() const;

    /// \return the operation \p id \param id index
    Operation& GetOperation(uint32_t id);
    /// Deliver member \p m's result now \param id operation \param m member
    void DeliverResult(uint32_t id, uint32_t m);
    /// Member \p m's contribution is complete \param id operation \param m member
    void ContributionDone(uint32_t id, uint32_t m);
    /// The operation is over on the tree (the next may start) \param id operation
    void FinishOperation(uint32_t id);
    /**
     * End the operation member by member at the given delays: each member's
     * ContributionDone / DeliverResult (as its volume has them) at its delay,
     * in time order (members in index order at equal times), and
     * FinishOperation after the last.
     * \param id operation
     * \param ends (delay from now in ns, member) of every member with data to move
     */
    void ScheduleMemberEnds(uint32_t id, std::vector<std::pair<int64_t, uint32_t>> ends);
    /// Count progress (bytes moved) \param bytes bytes
    void AddProgress(uint64_t bytes);

    std::shared_ptr<const Topology> m_topo; //!< the topology
    Stats m_stats;                          //!< counters

  private:
    /// A tree and its scheduling state.
    struct TreeState
    {
        AggregationTree tree;       //!< the tree
        bool held{false};           //!< resources held
        int32_t running{-1};        //!< operation on the tree, or -1
        std::deque<uint32_t> ready; //!< ready operations, in order
        bool waiting{false};        //!< in m_waiting
        Time waitingSince{0};       //!< when it started waiting
        uint32_t serial{0};         //!< operations started
    };

    /// Per switch: what trees hold.
    struct SwitchUse
    {
        uint32_t slots{0}; //!< slots held
        uint32_t trees{0}; //!< trees held
    };

    /// \return "" if tree \p t can get its resources now, else why not \param t tree
    std::string CheckResources(const AggregationTree& t) const;
    /// Take / give back tree \p t's resources \param t tree \param take take (else release)
    void HoldResources(const AggregationTree& t, bool take);
    /// Start the next ready operation of tree \p i if it can \param i tree
    void TryStart(uint32_t i);
    /// Release an idle leased tree and let waiting trees try \param i tree
    void ReleaseIdle(uint32_t i);
    /// Free operation \p id if it is over everywhere \param id operation
    void MaybeFree(uint32_t id);

    // attributes
    uint32_t m_slots{1024};
    uint32_t m_treeSlots{256};
    uint32_t m_slotPayload{0};
    uint32_t m_treesPerSwitch{0};
    uint32_t m_treesPerPort{0};
    uint32_t m_aggregationPorts{0};
    int m_policyValue{0}; //!< NoResources: 0 fallback, 1 wait
    DataRate m_reductionRate{0};
    Time m_engineLatency{0};

    std::vector<TreeState> m_trees;                              //!< trees built
    std::map<std::vector<uint32_t>, int32_t> m_groups;           //!< dim + members -> tree or -1
    std::unordered_map<uint32_t, SwitchUse> m_switchUse;         //!< per switch node
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> m_portUse; //!< (switch, link) -> trees
    std::deque<uint32_t> m_waiting;                              //!< trees waiting for resources
    std::vector<Operation> m_ops;                                //!< operations, by id
    std::vector<uint32_t> m_freeOps;                             //!< reusable ids

    /// An operation's identity: its key and its tree (the lines of a collective share a key).
    struct OpKey
    {
        uint64_t key;  //!< InSwitchOp::key
        uint32_t tree; //!< tree index

        /// \param o other \return equal
        bool operator==(const OpKey& o) const
        {
            return key == o.key && tree == o.tree;
        }
    };

    /// Hash of an OpKey.
    struct OpKeyHash
    {
        /// \param k key \return hash
        size_t operator()(const OpKey& k) const
        {
            return std::hash<uint64_t>()(k.key ^ (uint64_t(k.tree) * 0x9E3779B97F4A7C15ull));
        }
    };

    std::unordered_map<OpKey, uint32_t, OpKeyHash> m_opByKey; //!< (key, tree) -> id
    uint64_t m_pending{0};                                    //!< operations running on trees
    uint64_t m_progress{0};                                   //!< progress counter

    /// Trace: an operation started on its tree (key, tree, ready time).
    TracedCallback<uint64_t, uint32_t> m_startTrace;
    /// Trace: an operation finished (key, tree).
    TracedCallback<uint64_t, uint32_t> m_endTrace;
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_IN_SWITCH_AGGREGATION_H */
