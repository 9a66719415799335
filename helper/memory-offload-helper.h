/*
 * The workload of the memory-offload example: one ZeRO-Infinity-style
 * training step of a stack of GPT layers with the parameters, gradients and
 * optimizer state offloaded to disaggregated memory, per data-parallel rank.
 */

#ifndef ASTRA_MEMORY_OFFLOAD_HELPER_H
#define ASTRA_MEMORY_OFFLOAD_HELPER_H

#include "ns3/workload-graph.h"

#include <cstdint>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * One training step of L GPT layers (hidden size h, P_l = 12 h^2 + 13 h
 * parameters each) on N data-parallel ranks, ZeRO-3 partitioned with every
 * partition offloaded (ZeRO-Infinity): rank r keeps s_l = ceil(P_l / N)
 * parameters of layer l in its remote memory, with mixed-precision Adam's 16
 * bytes of state per parameter (fp16 parameter 2, fp16 gradient 2, fp32
 * master weight, momentum and variance 12). Per layer and rank:
 *
 * - forward: MEM_LOAD "layer<l>.params" (2 s_l bytes; issued when the
 *   previous layer's all-gather finished: one layer of prefetch), ALL_GATHER
 *   of the parameters (2 s_l per rank), COMP 2 x tokens x P_l FLOPs;
 * - backward (last layer first): MEM_LOAD "layer<l>.params" again, ALL_GATHER,
 *   COMP 4 x tokens x P_l FLOPs, REDUCE_SCATTER of the gradients
 *   (2 N s_l), MEM_STORE "layer<l>.grads" (2 s_l);
 * - optimizer (after the layer's reduce-scatter): MEM_LOAD
 *   "layer<l>.optimizer" (12 s_l), COMP 10 s_l FLOPs (Adam), MEM_STORE
 *   "layer<l>.optimizer" (12 s_l).
 *
 * So a rank reads 16 and writes 14 bytes per parameter of its partition:
 * parameters twice, gradients written once, optimizer state read and
 * written once. COMP durations are FLOPs / Tflops.
 */
class OffloadStepWorkload
{
  public:
    uint32_t layers{8};    //!< GPT layers
    uint32_t hidden{512};  //!< hidden size h
    uint32_t tokens{2048}; //!< tokens per rank (micro-batch x sequence length)
    double tflops{300};    //!< sustained compute of an NPU (TFLOP/s)
    uint32_t ranks{64};    //!< data-parallel ranks N

    /// \return parameters of one layer (12 h^2 + 13 h)
    uint64_t LayerParams() const;
    /// \return parameters of one layer held by one rank (ceil(P_l / N))
    uint64_t ShardParams() const;
    /// \return bytes one rank loads per step (16 per parameter of its partition)
    uint64_t ReadBytesPerRank() const;
    /// \return bytes one rank stores per step (14 per parameter of its partition)
    uint64_t WriteBytesPerRank() const;

    /**
     * Build the graphs (one per rank; collectives over all ranks, pg_name "").
     * \return the graphs
     * \throw InputError for zero layers, hidden size, tokens, ranks or a non-positive Tflops
     */
    std::vector<WorkloadGraph> Build() const;
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_MEMORY_OFFLOAD_HELPER_H */
