/*
 * Collective algorithms as pluggable step generators. One phase of a
 * collective runs one algorithm over an ordered set of peers (one dimension's
 * line, a sub-grid flattened, or an irregular group). A phase is a sequence of
 * steps; in each step an NPU sends some messages and then waits for some
 * receives. The generators are stateless functions of (algorithm, operation,
 * N, rank, bytes, step), so a running chunk keeps only its step index.
 *
 * Every algorithm family is one CollectiveAlgorithm object in a registry keyed
 * by AlgoKind: its name (configuration files, placement strings), where it can
 * run, and its steps. The planner (collective-planner.h) asks the registry;
 * the step engine (astra-system.h) runs the chosen object. Adding an algorithm
 * is one subclass plus one registry line (and its AlgoKind value).
 */

#ifndef ASTRA_COLLECTIVE_ALGORITHM_H
#define ASTRA_COLLECTIVE_ALGORITHM_H

#include "system-params.h"

#include "ns3/topology.h"

#include <cstdint>
#include <string>
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

/**
 * \return true for the root-based primitives (REDUCE, GATHER, SCATTER,
 * BROADCAST, BARRIER), whose steps are the same for every algorithm family
 * (CollectiveAlgorithm::GetRooted())
 */
bool IsRootedOp(PhaseOp op);

/// \return the data size of a phase's output per member (the next phase's input; GATHER:
/// the root's, SCATTER: each member's share)
uint64_t PhaseOutputBytes(PhaseOp op, uint32_t n, uint64_t bytes);

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
 * A phase whose every step sends one message of one size to one fixed peer
 * and receives one message (a ring). The step engine then runs the steps from
 * these few numbers without generating them (its per-message fast path).
 * Every member must have the same pattern (shifted by its peer), so that
 * member r's step k and its peer's step k reduce alike.
 */
struct UniformStep
{
    uint32_t peer{0};        //!< index of the member every step sends to
    uint64_t bytes{0};       //!< bytes of every step's message
    uint32_t reduceSteps{0}; //!< steps below this reduce what they receive
};

/**
 * \ingroup astra-sim
 * One collective algorithm family (ring, direct, halving-doubling, ...):
 * a stateless step generator. Subclasses are registered in
 * collective-algorithm.cc and found with Get().
 */
class CollectiveAlgorithm
{
  public:
    virtual ~CollectiveAlgorithm();

    /// \return the configuration name, e.g. "halvingDoubling"
    virtual const char* GetName() const = 0;

    /**
     * Recognise an implementation name (as ASTRA-sim spells it, case
     * sensitive; a flattened "oneXyz" variant arrives as "xyz") and fill the
     * algorithm's parameters. Default: the name equals GetName().
     * \param name the name without the "one" prefix
     * \param original the name as the user wrote it (for error messages)
     * \param spec receives kind and parameters
     * \return true if the name is this algorithm's (throws ConfigError if it is
     * this algorithm's with a bad parameter)
     */
    virtual bool ParseName(const std::string& name,
                           const std::string& original,
                           AlgoSpec& spec) const;

    /// \return true if a flattened "one" variant exists (default: true)
    virtual bool CanFlatten() const;

    /**
     * \return true if the algorithm can run \p op on \p n members placed on
     * \p dim (null: a flat phase routed through the network); otherwise the
     * planner runs ring and warns (default: true)
     * \param op the operation
     * \param n member count
     * \param dim the dimension, or null
     */
    virtual bool CanRun(PhaseOp op, uint32_t n, const DimensionSpec* dim) const;

    /// \return what CanRun() requires, for the warning (e.g. "a power-of-two member count")
    virtual std::string GetRequirement() const;

    /**
     * \return true and fill \p out if every step of \p op is one message to a
     * fixed peer and one receive (see UniformStep; default false)
     * \param op the operation (never a rooted one)
     * \param n member count (> 1)
     * \param rank this member's index
     * \param bytes the phase's input bytes
     * \param out the pattern
     */
    virtual bool GetUniformStep(PhaseOp op,
                                uint32_t n,
                                uint32_t rank,
                                uint64_t bytes,
                                UniformStep& out) const;

    /**
     * \return the number of steps of member \p rank
     * \param spec the configured algorithm (parameters such as directN's window)
     * \param op the operation
     * \param n member count (> 1)
     * \param rank the member's index
     */
    virtual uint32_t NumSteps(const AlgoSpec& spec,
                              PhaseOp op,
                              uint32_t n,
                              uint32_t rank) const = 0;

    /**
     * Fill \p out with step \p k of member \p rank (out is cleared first by the caller).
     * \param spec the configured algorithm
     * \param op the operation
     * \param n member count (> 1)
     * \param rank the member's index
     * \param bytes the phase's data size (see PhaseOp for its meaning)
     * \param k the step
     * \param out the step
     */
    virtual void GetStep(const AlgoSpec& spec,
                         PhaseOp op,
                         uint32_t n,
                         uint32_t rank,
                         uint64_t bytes,
                         uint32_t k,
                         Step& out) const = 0;

    /**
     * \return the registered algorithm of a family, or nullptr for
     * AlgoKind::CUSTOM (trace-defined algorithms are interpreted, see
     * custom-collective.h)
     * \param kind the family
     */
    static const CollectiveAlgorithm* Get(AlgoKind kind);

    /// \return the generator of the rooted primitives (IsRootedOp), shared by every family
    static const CollectiveAlgorithm& GetRooted();

    /// \return the configuration names of the registered algorithms
    static std::vector<std::string> GetNames();
};

/**
 * \ingroup astra-sim
 * The steps a phase runs: the algorithm chosen for it, or the rooted
 * primitives for a rooted operation. Built by the planner; cheap to copy.
 */
struct PhaseAlgorithm
{
    AlgoSpec spec;                             //!< the algorithm (after any fallback)
    const CollectiveAlgorithm* steps{nullptr}; //!< step generator (null: custom)

    /// \return the number of steps of member \p rank
    uint32_t NumSteps(PhaseOp op, uint32_t n, uint32_t rank) const
    {
        return n <= 1 ? 0 : steps->NumSteps(spec, op, n, rank);
    }

    /// Fill \p out with step \p k of member \p rank (see CollectiveAlgorithm::GetStep)
    void GetStep(PhaseOp op, uint32_t n, uint32_t rank, uint64_t bytes, uint32_t k, Step& out) const
    {
        out.sends.clear();
        out.recvs = 0;
        out.reduce = false;
        steps->GetStep(spec, op, n, rank, bytes, k, out);
    }
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_COLLECTIVE_ALGORITHM_H */
