/*
 * The packet-level aggregation engine of an RdmaSwitch (SHARP-like): the
 * switch's aggregation unit is an RDMA endpoint of its own (an RdmaHostStack
 * on a node joined to the switch by an internal port), so that the children
 * of a reduction tree (NPUs, lower switches) reach it over reliable RoCE
 * connections that terminate there, and it reaches its parent the same way.
 * Every slot sequence of an operation is one RDMA WRITE with immediate data
 * (one packet: RETH address = operation serial and sequence, ImmDt = the
 * value). The engine watches the frames arriving at its port (a tap in front
 * of the transport) and combines contributions of the same sequence as they
 * arrive, whatever their order; the transport acknowledges, NAKs and
 * retransmits as usual (go-back-N), and a per-slot contributor bitmap makes
 * sure a retransmitted packet never counts twice. A complete slot goes up
 * (or, at the root, down to every child: one WRITE per child link); a result
 * from the parent goes down. A slot keeps its result until the sequence one
 * window later reuses it, so a late duplicate of a completed sequence is
 * recognised and not counted into the next one.
 */

#ifndef ASTRA_AGGREGATION_ENGINE_H
#define ASTRA_AGGREGATION_ENGINE_H

#include "ns3/in-switch-network.h"
#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/rdma-host-stack.h"
#include "ns3/rdma-net-device.h"

#include <cstdint>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * What moves for each slot sequence of one in-switch operation: operations
 * are cut into sequences of at most one slot's payload; every member sends
 * up the sequences it contributes and gets one down message per sequence
 * (the result, or an empty "credit" when it contributed but receives nothing:
 * a reduce-scatter's shards of others, a reduce's non-roots, an
 * all-gather's own data, a broadcast's root). Shared by the engines and the
 * NPUs' side of RoceInSwitch.
 *
 * Layout: ALL_REDUCE, REDUCE, BROADCAST: ceil(S / P) sequences of the data;
 * REDUCE_SCATTER: member r's shard (max(1, S / n) bytes) is sequences
 * r K .. r K + K - 1; ALL_GATHER: member r's k-th packet is sequence k n + r
 * (the members' data interleaved, so that the window runs over all).
 */
struct AggregationSchedule
{
    InSwitchOpKind kind{InSwitchOpKind::ALL_REDUCE}; //!< the operation
    uint32_t n{0};                                   //!< members
    uint32_t root{0};                                //!< root member (REDUCE, BROADCAST)
    uint64_t bytes{0};                               //!< bytes per member
    uint32_t payload{0};                             //!< bytes per slot
    uint64_t perMember{0}; //!< REDUCE_SCATTER: sequences per shard; ALL_GATHER: per member
    uint64_t share{0};     //!< REDUCE_SCATTER: shard bytes; ALL_GATHER: bytes per member
    uint64_t sequences{0}; //!< sequences of the operation

    /**
     * \return the schedule of an operation
     * \param kind the operation \param n members \param root the root
     * \param bytes bytes per member \param payload bytes per slot
     */
    static AggregationSchedule Make(InSwitchOpKind kind,
                                    uint32_t n,
                                    uint32_t root,
                                    uint64_t bytes,
                                    uint32_t payload);

    /// \return payload bytes of sequence \p q
    uint32_t Payload(uint64_t q) const;
    /// \return the member whose data (RS: shard) sequence \p q is (RS, AG), else root
    uint32_t Owner(uint64_t q) const;
    /// \return whether member \p m contributes sequence \p q
    bool Contributes(uint32_t m, uint64_t q) const;
    /// \return whether member \p m receives sequence \p q's data (else a credit if it contributed)
    bool Receives(uint32_t m, uint64_t q) const;
    /// \return how many sequences member \p m contributes
    uint64_t Contributions(uint32_t m) const;
    /// \return member \p m's \p k-th contributed sequence
    uint64_t ContributionSeq(uint32_t m, uint64_t k) const;
};

/// The RETH address of a slot sequence: the operation's serial (24 bits) and the sequence.
inline uint64_t
AggregationAddress(uint32_t serial, uint64_t seq)
{
    return (uint64_t(serial & 0xFFFFFF) << 40) | (seq & ((uint64_t(1) << 40) - 1));
}

/**
 * \ingroup astra-sim
 * The aggregation engine of one switch (see the file comment). Configured by
 * RoceInSwitch (trees, connections, operations); one per aggregating switch,
 * created by AggregationHelper.
 */
class AggregationEngine : public Object, private RdmaFrameReceiver
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// Counters of one engine.
    struct Stats
    {
        uint64_t contributions{0}; //!< contributions combined (first arrivals)
        uint64_t duplicates{0};    //!< contributions already counted (retransmissions)
        uint64_t stale{0};         //!< frames of an older sequence or operation (ignored)
        uint64_t deferred{0};      //!< out-of-order frames whose slot was still busy (the
                                   //!< transport drops and resends them in order)
        uint64_t partialsUp{0};    //!< partial results sent to the parent
        uint64_t resultsDown{0};   //!< results received from the parent or completed at the root
        uint64_t messagesDown{0};  //!< down messages posted (results and credits)
    };

    AggregationEngine();
    ~AggregationEngine() override;

    /**
     * Take the engine's endpoint: its host stack and the port that joins it
     * to the switch (the engine taps the frames arriving there).
     * \param sw topology node id of the switch
     * \param stack the endpoint's host stack
     * \param port its port
     */
    void Setup(uint32_t sw, Ptr<RdmaHostStack> stack, Ptr<RdmaNetDevice> port);

    /// \return the switch's topology node id
    uint32_t GetSwitch() const;
    /// \return the endpoint's host stack
    Ptr<RdmaHostStack> GetStack() const;
    /// \return the endpoint's host index
    uint32_t GetHostIndex() const;
    /// \return the counters
    const Stats& GetStats() const;

    /**
     * Take part in a tree.
     * \param children children of this switch in the tree (member links first, then
     *        child switches)
     * \param memberChild per member of the group: the child under which it is, or -1
     * \param childSize per child: members below it
     * \param root whether this switch is the root
     * \param window slots the tree holds here (TreeSlots)
     * \return the tree's index in this engine
     */
    uint32_t AddTree(uint32_t children,
                     const std::vector<int32_t>& memberChild,
                     const std::vector<uint32_t>& childSize,
                     bool root,
                     uint32_t window);
    /// Connection to child \p c of local tree \p t (this engine's end) \param t \param c \param qp
    void SetChildQp(uint32_t t, uint32_t c, Ptr<RdmaQueuePair> qp);
    /// Connection to the parent of local tree \p t (this engine's end) \param t \param qp
    void SetParentQp(uint32_t t, Ptr<RdmaQueuePair> qp);

    /**
     * A new operation on local tree \p t (set up out of band, as an
     * aggregation manager configures a tree): every slot is free.
     * \param t local tree
     * \param sched the operation's schedule
     * \param serial its serial on the tree
     */
    void Begin(uint32_t t, const AggregationSchedule& sched, uint32_t serial);

  protected:
    void DoDispose() override;

  private:
    /// Slot states.
    enum SlotState : uint8_t
    {
        FREE,       //!< never used in this operation
        COLLECTING, //!< waiting for contributions (or, with none expected here, the result)
        UP,         //!< partial result sent to the parent, waiting for the result
        DONE        //!< result sent down; kept until the slot is reused
    };

    /// One slot: one sequence's state.
    struct Slot
    {
        uint64_t seq{0};      //!< the sequence it holds
        uint32_t value{0};    //!< partial sum, then the result
        uint32_t count{0};    //!< contributions combined
        uint32_t expected{0}; //!< contributions this switch waits for
        uint8_t state{FREE};  //!< SlotState
    };

    /// One tree at this engine.
    struct Tree
    {
        uint32_t children{0};                    //!< children
        uint32_t words{0};                       //!< bitmap words per slot
        bool root{false};                        //!< this switch is the root
        std::vector<int32_t> memberChild;        //!< member -> child (or -1)
        std::vector<uint32_t> childSize;         //!< child -> members below
        std::vector<Ptr<RdmaQueuePair>> childQp; //!< this end of the child connections
        Ptr<RdmaQueuePair> parentQp;             //!< this end of the parent connection
        AggregationSchedule sched;               //!< current operation
        uint32_t serial{0};                      //!< its serial
        bool active{false};                      //!< an operation was begun
        std::vector<Slot> slots;                 //!< the window
        std::vector<uint64_t> bits;              //!< contributor bitmaps (slots x words)
    };

    /// A frame's role: which tree, and which child (or the parent).
    struct Role
    {
        uint32_t tree{UINT32_MAX}; //!< local tree
        uint32_t child{0};         //!< child index, or kParent
    };

    static constexpr uint32_t kParent = UINT32_MAX; //!< Role::child of the parent connection

    void ReceiveFrame(RdmaNetDevice* dev, RdmaQueuedFrame& frame) override;
    /// Combine one WRITE-with-immediate frame \param r its role \param meta the frame
    void Consume(const Role& r, const RdmaMeta& meta);
    /// Send sequence \p q's result down \param t tree \param s slot
    void SendDown(Tree& t, Slot& s);
    /// Register a QP's role \param qp this engine's QP \param r role
    void SetRole(const Ptr<RdmaQueuePair>& qp, Role r);

    uint32_t m_switch{0};               //!< switch node id
    Ptr<RdmaHostStack> m_stack;         //!< the endpoint
    RdmaFrameReceiver* m_next{nullptr}; //!< the transport behind the tap
    std::vector<Tree> m_trees;          //!< trees at this engine
    std::vector<Role> m_roles;          //!< by local QP number - first QP number
    Stats m_stats;                      //!< counters
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_AGGREGATION_ENGINE_H */
