/*
 * Inter-dimension scheduling: in which order each chunk of a multi-
 * dimensional collective visits the dimensions. Pluggable strategies chosen
 * by InterDimScheduling: baseline (every chunk the planner's order) and
 * Themis (Rashidi et al., "Themis: A Network Bandwidth-Aware Collective
 * Scheduling Policy for Distributed Training of DL Models", ISCA 2022): a
 * greedy per-chunk order that sends each chunk first where the estimated
 * load is least, so that the dimensions stay busy alike.
 */

#ifndef ASTRA_DIMENSION_SCHEDULER_H
#define ASTRA_DIMENSION_SCHEDULER_H

#include "collective-algorithm.h"
#include "system-params.h"

#include <cstdint>
#include <vector>

namespace ns3
{
namespace astra
{

/// One dimension a collective spans, as the scheduler sees it.
struct ScheduledDim
{
    uint32_t dim{0};      //!< the network dimension
    uint32_t members{1};  //!< members of the collective along it
    double bytesPerNs{0}; //!< its link bandwidth
};

/**
 * \ingroup astra-sim
 * A strategy that orders the dimensions for every chunk of a collective.
 * Strategies are stateless: a collective's loads start at zero, so every
 * member computes the same orders without sharing state.
 */
class DimensionScheduler
{
  public:
    virtual ~DimensionScheduler();

    /// \return the configuration name ("baseline", "themis")
    virtual const char* GetName() const = 0;

    /**
     * Order the dimensions of each chunk.
     * \param op the collective's operation (ALL_REDUCE, REDUCE_SCATTER or ALL_GATHER)
     * \param dims the spanned dimensions in the planner's order
     * \param chunkBytes every chunk's size, in issue order
     * \param orders receives one order per chunk: a permutation of the entries of \p dims
     *        (values are ScheduledDim::dim)
     */
    virtual void Schedule(PhaseOp op,
                          const std::vector<ScheduledDim>& dims,
                          const std::vector<uint64_t>& chunkBytes,
                          std::vector<std::vector<uint32_t>>& orders) const = 0;

    /// \return the strategy of \p kind
    static const DimensionScheduler& Get(InterDimScheduling kind);
};

/**
 * Themis: the greedy of the paper, as ASTRA-sim's offline greedy does it.
 * Each dimension carries an estimated load (ns of transfer so far). A
 * reduce-scatter chunk (and the reduce-scatter half of an all-reduce) goes
 * first to the least loaded dimension, then the next least loaded, ...: its
 * data shrinks by the member count in every dimension, so the biggest part
 * lands where there is most room; an all-gather chunk, whose data grows,
 * visits them from the most loaded to the least loaded. A dimension of n
 * members and bandwidth B is charged b (n-1)/n / B for a reduce-scatter of b
 * bytes and b (n-1) / B for an all-gather. When the loads differ by less than
 * what a sixteenth of the chunk would take on the least loaded dimension, the
 * chunk keeps the planner's order (as the reference does). An all-reduce runs
 * its reduce-scatter phases in the chosen order and its all-gather phases in
 * the reverse order.
 */
class ThemisScheduler : public DimensionScheduler
{
  public:
    const char* GetName() const override;
    void Schedule(PhaseOp op,
                  const std::vector<ScheduledDim>& dims,
                  const std::vector<uint64_t>& chunkBytes,
                  std::vector<std::vector<uint32_t>>& orders) const override;
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_DIMENSION_SCHEDULER_H */
