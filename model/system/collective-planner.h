/*
 * Where a collective is planned: a collective request of one NPU on a
 * communicator group becomes an ordered list of phases, each with an
 * operation, a dimension (or a flat, routed phase), an algorithm and the
 * ordered members it runs over. The step engine (astra-system.h) executes
 * the phases; the algorithms (collective-algorithm.h) generate their steps.
 */

#ifndef ASTRA_COLLECTIVE_PLANNER_H
#define ASTRA_COLLECTIVE_PLANNER_H

#include "collective-algorithm.h"
#include "dimension-scheduler.h"
#include "system-params.h"

#include "ns3/topology.h"
#include "ns3/workload-graph.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

/// What the engine asks the system layer to run.
struct CollectiveRequest
{
    CollType type{CollType::ALL_REDUCE}; //!< collective type
    uint64_t bytes{0};                   //!< comm_size (all-gather: each NPU's input)
    std::string group;                   //!< pg_name ("" = all NPUs)
    std::vector<bool> involvedDim;       //!< dimensions it may span (empty = all)
    int32_t priority{0};                 //!< comm_priority (EXPLICIT scheduling)
    /// REDUCE, GATHER, SCATTER, BROADCAST: the root NPU (-1: the instance's first member)
    int32_t root{-1};
    std::string name; //!< workload node name (reports)
};

/// One phase of a planned collective, as one member runs it.
struct CollectivePhase
{
    PhaseOp op{PhaseOp::ALL_REDUCE};                    //!< what the phase computes
    int32_t dim{-1};                                    //!< dimension; -1 = flat (routed)
    PhaseAlgorithm algo;                                //!< algorithm and its step generator
    std::shared_ptr<const std::vector<uint32_t>> peers; //!< ordered members of this phase
    uint32_t myIndex{0};                                //!< the member's index in peers
    /// a rooted phase: the members of this NPU's line along dim even where the NPU sits
    /// the phase out (peers = itself); 0: peers->size()
    uint32_t lineSize{0};
    /// the dimension whose queues the phase's chunks wait in (dim, or the extra last
    /// "dimension" of flat phases; compat: 0 for a communicator group, as the reference)
    uint32_t queueDim{0};
    /// custom algorithm: the per-rank traces (index = rank), else null
    const std::vector<WorkloadGraph>* custom{nullptr};
};

/// A collective as one member runs it.
struct CollectivePlan
{
    std::vector<CollectivePhase> phases; //!< in order; empty = nothing to exchange
    uint32_t anchor{0}; //!< smallest NPU of the collective instance (the same on every member)
    /// the dimensions a hierarchical all-reduce, reduce-scatter or all-gather spans, in
    /// the plan's order (empty otherwise): an inter-dimension scheduler may reorder them
    /// per chunk (CollectivePlanner::Plan with a dimension order)
    std::vector<ScheduledDim> spanned;
    PhaseOp op{PhaseOp::ALL_REDUCE}; //!< the collective's operation

    /// \return the placement for reports, e.g. "ALL_REDUCE@dim0:ring" per phase, or "local"
    std::string Placement() const;
    /// \return the members of the instance (product over distinct dimensions, or flat size)
    uint32_t MemberCount() const;
};

/**
 * \ingroup astra-sim
 * Plans collectives on a multi-dimensional topology (dimension 0 varies
 * fastest in NPU ids):
 *
 * - placement: members differing in one coordinate run on that dimension; a
 *   full sub-grid runs hierarchically over its dimensions; any other group
 *   runs one flat phase routed through the network (with a warning); the
 *   rooted operations (REDUCE, GATHER, SCATTER, BROADCAST, BARRIER) over a
 *   sub-grid run one phase per dimension on the lines through the root (the
 *   root from the request, e.g. the trace's comm_src / comm_dst);
 *   involved_dim restricts the all-NPU group to some dimensions;
 * - decomposition by collective-optimization (baseline, localBWAware) and
 *   the one* (flattened) implementations;
 * - algorithm choice per phase from the system parameters' lists, through
 *   the CollectiveAlgorithm registry (an algorithm that cannot run a phase
 *   falls back to ring, with a warning); custom traces take precedence.
 *
 * With SystemParams::compat the plan follows ASTRA-sim 2.0: a collective on
 * all NPUs spans only the dimensions its algorithm list covers (the reference
 * builds its logical topology over the listed dimensions), dimensions are
 * visited in index order (all-gather in reverse), an all-reduce's phases all
 * take the all-reduce list's algorithm, and a communicator group smaller than
 * the network runs one phase over its members (ring when several algorithms
 * are listed, else the one listed) in the queues of dimension 0.
 */
class CollectivePlanner
{
  public:
    /**
     * Set the topology and parameters.
     * \param dims network dimensions (product = NPU count)
     * \param params system parameters (algorithm lists, custom traces, optimization)
     */
    void Setup(const std::vector<DimensionSpec>& dims, const SystemParams& params);

    /// \return NPU count (product of the dimensions)
    uint32_t GetNpuCount() const;
    /// \return coordinate of npu along dim (dimension 0 varies fastest)
    uint32_t Coord(uint32_t npu, uint32_t dim) const;
    /// \return npu with its coordinate along dim replaced by c
    uint32_t WithCoord(uint32_t npu, uint32_t dim, uint32_t c) const;

    /**
     * Plan a collective of \p npu.
     * \param req the request
     * \param npu the issuing NPU (a member of \p members)
     * \param members the group's members, sorted
     * \param dimOrder for a plan with spanned dimensions: visit them in this order (a
     *        permutation of CollectivePlan::spanned's dimensions; an all-reduce then runs
     *        reduce-scatter phases in this order and all-gather phases in the reverse
     *        order); null: the planner's order
     * \return the plan
     */
    CollectivePlan Plan(const CollectiveRequest& req,
                        uint32_t npu,
                        std::shared_ptr<const std::vector<uint32_t>> members,
                        const std::vector<uint32_t>* dimOrder = nullptr) const;

    /**
     * \return the algorithm list of \p op (all-reduce-implementation for ALL_REDUCE and
     * the rooted operations, ...)
     * \param op the operation
     */
    const std::vector<AlgoSpec>& List(PhaseOp op) const;

  private:
    /**
     * Append the phases of a rooted operation over the dimensions \p V, one per
     * dimension, each on this NPU's line with the line's root first (see
     * Plan()); where this NPU takes no part, a phase of itself alone.
     */
    void AddRootedPhases(CollectivePlan& plan,
                         uint32_t npu,
                         PhaseOp op,
                         uint32_t root,
                         const std::vector<uint32_t>& V,
                         const std::vector<std::vector<uint32_t>>& coords) const;
    /// \return the root of a rooted request on \p members (validated; throws InputError)
    uint32_t RootOf(const CollectiveRequest& req, const std::vector<uint32_t>& members) const;
    /// \return the configured algorithm of \p op on \p dim (-1: flat)
    AlgoSpec Configured(PhaseOp op, int32_t dim) const;
    /// warn about algorithm lists shorter or longer than the dimension count (Setup)
    void CheckListLengths() const;
    /**
     * Append a phase to \p plan: the configured (or \p forced) algorithm, or
     * ring if it cannot run there.
     */
    void AddPhase(CollectivePlan& plan,
                  const CollectiveRequest& req,
                  uint32_t npu,
                  PhaseOp op,
                  int32_t dim,
                  std::shared_ptr<const std::vector<uint32_t>> peers,
                  const AlgoSpec* forced) const;

    std::vector<DimensionSpec> m_dims; //!< dimensions
    std::vector<uint32_t> m_stride;    //!< NPU id stride per dimension
    uint32_t m_npus{0};                //!< NPU count
    SystemParams m_params;             //!< parameters
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_COLLECTIVE_PLANNER_H */
