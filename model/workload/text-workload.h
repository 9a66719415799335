/*
 * ASTRA-sim 1.0 text workloads -> per-rank WorkloadGraphs.
 */

#ifndef ASTRA_TEXT_WORKLOAD_H
#define ASTRA_TEXT_WORKLOAD_H

#include "workload-graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * Options of the text-workload converter.
 */
struct TextWorkloadOptions
{
    /// Training iterations (passes) to unroll; pass p+1's forward of layer i waits for
    /// pass p's weight-gradient communication (and update) of layer i.
    uint32_t numPasses{1};
    /// Size of the inner NPU group ("package": consecutive NPUs) for the hybrid policies.
    /// 0 = the file's model_parallel_NPU_group if given, else the largest divisor d of the
    /// NPU count with d * d <= NPU count.
    uint32_t packageSize{0};
    /// Emit a COMP node "..._WG_UPDATE" of wg_update_time cycles after each layer's
    /// weight-gradient communication (off: like Chakra's text converter, no node).
    bool emitWeightUpdate{false};
};

/// Parallelism keyword of a text workload (first line), or of one HYBRID_CUSTOMIZED layer.
enum class TextParallelism : uint8_t
{
    MICRO,
    DATA,
    MODEL,
    HYBRID_DATA_MODEL,
    HYBRID_MODEL_DATA,
    HYBRID_DLRM,
    HYBRID_TRANSFORMER,
    HYBRID_TRANSFORMER_FWD_IN_BCKWD,
    HYBRID_CUSTOMIZED
};

/// \return e.g. "HYBRID_DATA_MODEL"
const char* TextParallelismName(TextParallelism p);

/// Comm type of a text-workload column (NONE = no communication).
enum class TextCommType : uint8_t
{
    NONE,
    ALLREDUCE,
    ALLGATHER,
    REDUCESCATTER,
    ALLTOALL
};

/// One layer line of a text workload.
struct TextLayer
{
    std::string name;                             //!< layer name
    int64_t reserved{-1};                         //!< second column (reserved / dependency, unused)
    uint64_t fwdComp{0};                          //!< forward compute, cycles
    TextCommType fwdCommType{TextCommType::NONE}; //!< forward comm type
    uint64_t fwdCommSize{0};                      //!< forward comm bytes
    uint64_t igComp{0};                           //!< input-gradient compute, cycles
    TextCommType igCommType{TextCommType::NONE};  //!< input-gradient comm type
    uint64_t igCommSize{0};                       //!< input-gradient comm bytes
    uint64_t wgComp{0};                           //!< weight-gradient compute, cycles
    TextCommType wgCommType{TextCommType::NONE};  //!< weight-gradient comm type
    uint64_t wgCommSize{0};                       //!< weight-gradient comm bytes
    uint64_t wgUpdate{0};                         //!< weight update time, cycles
    TextParallelism parallelism{TextParallelism::DATA}; //!< per-layer (HYBRID_CUSTOMIZED)
    uint32_t line{0};                                   //!< line number in the file
};

/// A parsed text workload.
struct TextWorkload
{
    std::string file;                                   //!< file name
    TextParallelism parallelism{TextParallelism::DATA}; //!< first-line keyword
    uint32_t modelParallelGroup{0};            //!< model_parallel_NPU_group (0 = not given)
    uint32_t dlrmLastBottomLayer{0};           //!< HYBRID_DLRM: index of the last bottom-MLP layer
    std::vector<uint32_t> checkpoints;         //!< FWD_IN_BCKWD: checkpoint layers
    std::vector<uint32_t> checkpointInitiates; //!< FWD_IN_BCKWD: layers that start recompute
    std::vector<TextLayer> layers;             //!< layers in file order
};

/**
 * \ingroup astra-sim
 * Parse a text workload. Errors (WorkloadError) name the file, the line and the cause.
 * \param path file
 * \return the parsed workload
 */
TextWorkload ParseTextWorkload(const std::string& path);

/**
 * \ingroup astra-sim
 * Build one training-iteration graph per rank from a parsed text workload.
 *
 * Graph of one pass (ids in creation order; names as Chakra's text converter:
 * COMP_NODE_<layer>_FWD, COMM_COLL_NODE_<layer>_<TYPE>, COMP_NODE_<layer>_BWD_IG,
 * COMP_NODE_<layer>_BWD_WG):
 *  - forward, layers 0..L-1: FWD comp (data dep: the previous forward step), then the
 *    forward comm if any, which is blocking (the next layer depends on it);
 *  - backward, layers L-1..0: BWD_IG comp (deps: the previous backward compute and that
 *    layer's input-gradient comm, i.e. input-gradient comms are blocking), the input-gradient
 *    comm (not for layer 0, as in ASTRA-sim 1.0), BWD_WG comp (dep: BWD_IG), the
 *    weight-gradient comm (dep: BWD_WG). Nothing in the pass depends on a weight-gradient
 *    comm: it overlaps with the backward compute of the layers below. In pass p+1 the FWD comp
 *    of layer i also depends on that comm (or on the optional WG_UPDATE node).
 *  - HYBRID_TRANSFORMER_FWD_IN_BCKWD: before the backward of a layer listed in
 *    checkpoint_initiates, the forward of layers c..i is recomputed (nodes ..._FWD_RECOMP),
 *    c = the largest checkpoint <= i.
 *  - HYBRID_DLRM (header number = last bottom-MLP layer K): layer 0 is the embedding; its
 *    forward all-to-all runs in parallel with the bottom MLP (layers 1..K), the first top
 *    layer (K+1) waits for both. In the backward the embedding's input-gradient all-to-all is
 *    issued after layer K+1's input gradient and overlaps with the bottom-MLP backward; the
 *    embedding's BWD_IG/BWD_WG wait for it and for the bottom MLP.
 *
 * Communicator groups (P = inner group size, see TextWorkloadOptions::packageSize; inner group
 * k = NPUs kP..kP+P-1, outer group j = NPUs j, j+P, j+2P, ...; a group spanning all NPUs is
 * written as pgName "" and not listed in commGroups):
 *  - MICRO, DATA, MODEL, HYBRID_DLRM: every collective spans all NPUs (pgName "");
 *  - HYBRID_DATA_MODEL (data-parallel between packages, model-parallel inside),
 *    HYBRID_TRANSFORMER(_FWD_IN_BCKWD) with P = model_parallel_NPU_group: forward and
 *    input-gradient comms in the inner group "mp<k>", weight-gradient comms in the outer
 *    group "dp<j>";
 *  - HYBRID_MODEL_DATA (model-parallel between packages, data-parallel inside): forward and
 *    input-gradient comms in the outer group "mp<j>", weight-gradient comms in the inner
 *    group "dp<k>"; inside HYBRID_CUSTOMIZED these are named "hmd_mp<j>" / "hmd_dp<k>" so
 *    they cannot clash with HYBRID_DATA_MODEL layers' groups;
 *  - HYBRID_CUSTOMIZED: each layer as its own column says (DATA, MODEL, HYBRID_DATA_MODEL,
 *    HYBRID_MODEL_DATA).
 * Every graph lists all groups of the workload in commGroups (name -> ranks).
 *
 * Durations: durationNs = cycles (1 cycle = 1 ns); durationMicros = ceil(cycles / 1000).
 *
 * \param w parsed workload
 * \param npus number of NPUs (ranks)
 * \param opts options
 * \return graphs, index = rank
 */
std::vector<WorkloadGraph> BuildTextWorkloadGraphs(
    const TextWorkload& w,
    uint32_t npus,
    const TextWorkloadOptions& opts = TextWorkloadOptions());

/**
 * \ingroup astra-sim
 * ParseTextWorkload + BuildTextWorkloadGraphs. Write the result as Chakra files with
 * WriteChakraPrefix (et-writer.h).
 * \param path file
 * \param npus number of NPUs
 * \param opts options
 * \return graphs, index = rank
 */
std::vector<WorkloadGraph> ReadTextWorkload(
    const std::string& path,
    uint32_t npus,
    const TextWorkloadOptions& opts = TextWorkloadOptions());

} // namespace astra
} // namespace ns3

#endif /* ASTRA_TEXT_WORKLOAD_H */
