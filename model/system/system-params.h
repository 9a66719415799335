/*
 * Parameters of the per-NPU system layer (collective scheduling, chunking,
 * endpoint and reduction cost, compute model). Filled from an ASTRA-sim
 * system configuration by LoadSystemParams() (astra-config.h), or built by
 * hand in tests.
 */

#ifndef ASTRA_SYSTEM_PARAMS_H
#define ASTRA_SYSTEM_PARAMS_H

#include "ns3/workload-graph.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

/// Collective algorithm families (one per network dimension); the one enum of the
/// configuration parser and the collective planner.
enum class AlgoKind : uint8_t
{
    RING,               //!< ring (lockstep neighbour exchange)
    DIRECT,             //!< direct: every peer at once (or a window of N peers)
    HALVING_DOUBLING,   //!< recursive halving / doubling
    DOUBLE_BINARY_TREE, //!< two complementary binary trees (all-reduce)
    IN_SWITCH,          //!< reduction / multicast in the switches (doc/in-network.rst)
    CUSTOM              //!< per-rank Chakra traces (e.g. MSCCL)
};

/// \return e.g. "ring"
const char* AlgoKindName(AlgoKind k);

/// One algorithm choice of one dimension, e.g. "direct4" or "oneRing".
struct AlgoSpec
{
    AlgoKind kind{AlgoKind::RING}; //!< family
    uint32_t window{0};            //!< directN: peers in flight (0 = all)
    bool flattened{false};         //!< one* variants: all dimensions flattened into one

    /**
     * Parse an entry of ASTRA-sim's *-implementation lists, spelled as in
     * ASTRA-sim: "ring", "direct", "directN" (N > 0 peers in flight),
     * "halvingDoubling", "doubleBinaryTree", "inSwitch", and the flattened "oneRing",
     * "oneDirect", "oneDirectN", "oneHalvingDoubling". The one parser of
     * these names (the configuration files go through it).
     * \param name the name
     * \return the algorithm
     * \throw ConfigError (no file context) on an unknown name, with a "did you mean"
     */
    static AlgoSpec Parse(const std::string& name);
};

/// Multi-dimensional collective decomposition.
enum class CollOptimization : uint8_t
{
    BASELINE,      //!< all-reduce in every dimension in turn
    LOCAL_BW_AWARE //!< reduce-scatter up, all-reduce on the last, all-gather down
};

/// Order in which waiting chunks get a slot.
enum class SchedulingPolicy : uint8_t
{
    LIFO,    //!< newest collective first
    FIFO,    //!< oldest collective first
    EXPLICIT //!< highest comm_priority first, then FIFO
};

/// How a multi-dimensional collective's chunks are spread over the dimensions.
enum class InterDimScheduling : uint8_t
{
    BASELINE, //!< every chunk visits the dimensions in the same order
    THEMIS    //!< per chunk, the least loaded dimension first (Themis, ISCA 2022)
};

/// Which waiting chunk of a dimension's queue starts next.
enum class IntraDimScheduling : uint8_t
{
    FIFO,          //!< by the scheduling-policy (collective order), chunks in order
    SMALLEST_FIRST //!< the chunk with the least data in its current phase first (Themis SCF)
};

/**
 * The collective library's protocol (NCCL's Simple, LL, LL128): its per-step
 * latency, its launch latency and the bytes it puts on the wire per payload
 * byte (LL: a 4-byte flag per 4 bytes; LL128: 8 of every 128 bytes).
 */
enum class CollProtocol : uint8_t
{
    NONE,   //!< no protocol model (the default)
    SIMPLE, //!< NCCL Simple
    LL,     //!< NCCL LL (low latency)
    LL128   //!< NCCL LL128
};

/**
 * \ingroup astra-sim
 * Everything the system layer needs from the system configuration.
 * Defaults follow ASTRA-sim 2.0 where it has one.
 */
struct SystemParams
{
    SchedulingPolicy scheduling{SchedulingPolicy::LIFO};       //!< scheduling-policy
    CollOptimization optimization{CollOptimization::BASELINE}; //!< collective-optimization
    std::vector<AlgoSpec> allReduce{AlgoSpec{}};               //!< all-reduce-implementation
    std::vector<AlgoSpec> allGather{AlgoSpec{}};               //!< all-gather-implementation
    std::vector<AlgoSpec> reduceScatter{AlgoSpec{}};           //!< reduce-scatter-implementation
    std::vector<AlgoSpec> allToAll{AlgoSpec{}};                //!< all-to-all-implementation
    /// all-*-implementation-custom: per-rank graphs (index = rank), keyed by CollType
    std::map<CollType, std::shared_ptr<std::vector<WorkloadGraph>>> custom;
    uint32_t splits{1};          //!< preferred-dataset-splits
    uint32_t activeChunks{1};    //!< active-chunks-per-dimension
    uint32_t queuesPerDim{1};    //!< --num-queues-per-dim
    double endpointDelayNs{10};  //!< endpoint-delay (ns)
    double localMemBwGBps{0};    //!< local-mem-bw (GB/s, GB = 1e9 bytes); 0 = no reduction cost
    double peakPerfTflops{0};    //!< peak-perf (TFLOPS)
    bool rooflineEnabled{false}; //!< roofline-enabled
    double computeScale{1};      //!< --compute-scale
    double commScale{1};         //!< --comm-scale (bytes of collectives and SEND/RECV)
    double injectionScale{1};    //!< --injection-scale (scales the endpoint delay)
    bool rendezvous{false};      //!< --rendezvous-protocol (accepted; see doc)
    bool compat{false};          //!< ASTRA-sim 2.0 compatibility timing
    /// inter-dimension-scheduling (baseline, themis)
    InterDimScheduling interDim{InterDimScheduling::BASELINE};
    /// intra-dimension-scheduling (FIFO, smallestFirst)
    IntraDimScheduling intraDim{IntraDimScheduling::FIFO};
    /// collective-protocol: per-step and launch latency, wire bytes (default model only)
    CollProtocol protocol{CollProtocol::NONE};
    /// collective-step-latency-ns: per dimension (a ring step's fixed cost); empty: the
    /// protocol's NVLink latency on Ring / FullyConnected / Switch dimensions and its network
    /// latency on switched fabrics (Clos, FatTree, RailClos), 0 without a protocol
    std::vector<double> stepLatencyNs;
    /// collective-launch-latency-ns: once per collective (negative: the protocol's)
    double launchLatencyNs{-1};
    /// reduction-fused: the reduction runs inside the copy (no local-mem-bw term)
    bool reductionFused{false};
    /// collective-gate-latency-ns: how long an NPU's issue of a collective takes to reach
    /// the members' slot gates (0: at once, the gate sees every member's issue instantly;
    /// > 0: message-driven gate, doc/system-model.rst)
    double gateLatencyNs{0};
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_SYSTEM_PARAMS_H */
