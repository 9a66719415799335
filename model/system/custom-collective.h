/*
 * The interpreter of custom (trace-defined) collective algorithms, e.g.
 * MSCCL-style per-rank Chakra traces given by all-*-implementation-custom:
 * one rank's trace of SEND / RECV / COMP nodes is run as given, for one chunk
 * of one collective. It decides what to do and when; the step engine
 * (AstraSystem) sends the messages, keeps the time and reports back.
 */

#ifndef ASTRA_CUSTOM_COLLECTIVE_H
#define ASTRA_CUSTOM_COLLECTIVE_H

#include "ns3/nstime.h"
#include "ns3/workload-graph.h"

#include <cstdint>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * One rank's run of a custom collective trace. A node is issued when its
 * dependencies have finished: a SEND becomes a message to the member of rank
 * comm_dst (done when the backend reports it sent), a RECV waits for a
 * message from rank comm_src with its tag, a COMP takes its replayed
 * duration, any other node finishes at once. The interpreter returns what the
 * engine must do as Actions, in the order it must do them.
 */
class CustomCollective
{
  public:
    /// Something the engine must do for the interpreter.
    struct Action
    {
        /// What to do.
        enum Kind : uint8_t
        {
            SEND,        //!< send a message; NodeDone(node) when it is sent
            FINISH_AFTER //!< NodeDone(node) after delay
        };

        Kind kind{FINISH_AFTER}; //!< what to do
        uint32_t node{0};        //!< the trace node (index into its nodes)
        uint32_t peerRank{0};    //!< SEND: destination rank in the group
        uint64_t bytes{0};       //!< SEND: payload bytes (at least 1)
        uint32_t tag{0};         //!< SEND: the trace's tag, masked to the engine's step field
        Time delay;              //!< FINISH_AFTER: delay
    };

    /**
     * \param trace this rank's trace
     * \param groupSize members of the group (ranks 0 .. groupSize - 1)
     * \param tagMask the bits of a trace tag the engine carries (tags are compared masked)
     * \param computeScale factor of COMP durations
     */
    CustomCollective(const WorkloadGraph& trace,
                     uint32_t groupSize,
                     uint32_t tagMask,
                     double computeScale);

    /// \return true when every node has finished (at once for an empty trace)
    bool IsFinished() const;

    /**
     * A message from rank \p srcRank with \p tag arrived. Recorded; call
     * MatchReceives() to let posted RECV nodes take it.
     * \param srcRank the sender's rank in the group
     * \param tag its tag (masked)
     */
    void Arrive(uint32_t srcRank, uint32_t tag);

    /**
     * Issue every ready node, then match receives.
     * \param out receives the actions, in order
     */
    void Run(std::vector<Action>& out);

    /**
     * Let posted RECV nodes take arrived messages (in posting order, each the
     * first matching arrival): each match finishes its node after 0 ns.
     * \param out receives the actions, in order
     */
    void MatchReceives(std::vector<Action>& out);

    /**
     * Node \p node finished.
     * \param node the node
     * \param out receives the actions of the nodes that became ready, in order
     * \return true if that was the last node
     */
    bool NodeDone(uint32_t node, std::vector<Action>& out);

    /// \return the ranks that posted RECV nodes wait for (comm_src, in posting order)
    std::vector<int32_t> GetAwaitedRanks() const;

  private:
    /// An arrived message not yet taken by a RECV node.
    struct Arrival
    {
        uint32_t srcRank; //!< sender's rank
        uint32_t tag;     //!< its tag (masked)
    };

    const WorkloadGraph* m_trace;    //!< the trace
    DependencyTable m_deps;          //!< dependency counts (pending UINT32_MAX: issued)
    std::vector<uint32_t> m_posted;  //!< RECV nodes waiting, in posting order
    std::vector<Arrival> m_arrivals; //!< messages waiting for a RECV
    uint32_t m_remaining{0};         //!< nodes not yet finished
    uint32_t m_groupSize;            //!< members of the group
    uint32_t m_tagMask;              //!< tag bits the engine carries
    double m_computeScale;           //!< COMP duration factor
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_CUSTOM_COLLECTIVE_H */
