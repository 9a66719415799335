/*
 * Collective algorithms as step generators. One phase of a collective runs
 * one algorithm over an ordered set of peers (one dimension's line, a sub-grid
 * flattened, or an irregular group). A phase is a sequence of steps; in each
 * step an NPU sends some messages and then waits for some receives. The
 * generators are stateless functions of (algorithm, type, N, rank, bytes,
 * step), so a running chunk keeps only its step index.
 */

#ifndef ASTRA_COLLECTIVE_ALGORITHM_H
#define ASTRA_COLLECTIVE_ALGORITHM_H

#include "system-params.h"

#include <cstdint>
#include <vector>

namespace ns3
{
namespace astra
{

/// The primitive a phase performs (what one algorithm instance computes).
enum class PhaseOp : uint8_t
{
    ALL_REDUCE,
    REDUCE_SCATTER,
    ALL_GATHER, //!< bytes = each member's input
    ALL_TO_ALL,
    REDUCE,    //!< to member index 0
    GATHER,    //!< to member index 0; bytes = each member's input
    SCATTER,   //!< from member index 0; bytes = total at the root
    BROADCAST, //!< from member index 0
    BARRIER    //!< dissemination barrier, 1-byte messages
};

/// \return e.g. "REDUCE_SCATTER"
const char* PhaseOpName(PhaseOp op);

/// One message of a step: peer index within the phase's member list, bytes.
struct StepSend
{
    uint32_t peer{0};    //!< index into the phase's members
    uint64_t bytes{0};   //!< payload
    int32_t tagStep{-1}; //!< receiver's step that consumes it (-1: the sender's step)
};

/// One step of one NPU.
struct Step
{
    std::vector<StepSend> sends; //!< issued when the step starts
    uint32_t recvs{0};           //!< receives that complete the step
    bool reduce{false};          //!< received data is reduced (reduction cost)
};

/**
 * \ingroup astra-sim
 * Stateless step generators.
 */
class CollectiveAlgorithm
{
  public:
    /**
     * \return the algorithm that will really run: halving-doubling needs a
     * power-of-two member count, double binary tree only does all-reduce;
     * otherwise ring is used (the caller logs the substitution).
     */
    static AlgoSpec Effective(const AlgoSpec& spec, PhaseOp op, uint32_t n);

    /// \return number of steps of one NPU
    static uint32_t NumSteps(const AlgoSpec& spec, PhaseOp op, uint32_t n, uint32_t rank);

    /**
     * Fill \p out with step \p k of member \p rank.
     * \param bytes the phase's data size (see PhaseOp for its meaning)
     */
    static void GetStep(const AlgoSpec& spec,
                        PhaseOp op,
                        uint32_t n,
                        uint32_t rank,
                        uint64_t bytes,
                        uint32_t k,
                        Step& out);

    /// \return the data size of the phase's output per member relative to input (for chaining)
    static uint64_t OutputBytes(PhaseOp op, uint32_t n, uint64_t bytes);
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_COLLECTIVE_ALGORITHM_H */
