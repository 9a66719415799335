/*
 * The parsers of ASTRA-sim's configuration files, one per format, used by
 * astra-sim-runner, the examples and the tests alike: system configuration
 * (JSON, and the ASTRA-sim 1.0 "key: value" .txt form), remote memory
 * configuration, communicator groups, and the ns-3 variant's logical
 * topology. (The network configuration is read by Topology::FromFile,
 * topology-reader.cc.)
 *
 * Every parser is strict: an unknown key is an error with a "did you mean";
 * a key ASTRA-sim defines but this module does not model is accepted, and a
 * value of it that would change ASTRA-sim's result prints a warning naming
 * the key (ASTRA_WARN, cause "not-modelled:<key>"); a missing required value,
 * a value of the wrong type, a non-finite, negative or out-of-range number is
 * a ConfigError naming the file, the key and the value.
 */

#ifndef ASTRA_CONFIG_H
#define ASTRA_CONFIG_H

#include "ns3/astra-input.h"
#include "ns3/memory-model.h"
#include "ns3/system-params.h"

#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * ASTRA-sim system configuration. Every key of the ASTRA-sim 2.0 system JSON
 * (and of the 1.0 text form) is a field; `keys` records which ones the file set.
 */
struct SystemConfig
{
    std::string file;                               //!< source file
    std::string schedulingPolicy{"LIFO"};           //!< scheduling-policy: LIFO, FIFO, EXPLICIT
    std::string collectiveOptimization{"baseline"}; //!< baseline or localBWAware
    std::vector<AlgoSpec> allReduceImpl;            //!< all-reduce-implementation
    std::vector<AlgoSpec> allGatherImpl;            //!< all-gather-implementation
    std::vector<AlgoSpec> reduceScatterImpl;        //!< reduce-scatter-implementation
    std::vector<AlgoSpec> allToAllImpl;             //!< all-to-all-implementation
    /// all-*-implementation-custom: Chakra prefixes as written in the file
    std::vector<std::string> allReduceCustom;
    std::vector<std::string> allGatherCustom;     //!< all-gather-implementation-custom
    std::vector<std::string> reduceScatterCustom; //!< reduce-scatter-implementation-custom
    std::vector<std::string> allToAllCustom;      //!< all-to-all-implementation-custom
    uint32_t preferredDatasetSplits{1};           //!< preferred-dataset-splits
    uint32_t activeChunksPerDimension{1};         //!< active-chunks-per-dimension
    double endpointDelay{10};                     //!< endpoint-delay (ns)
    double localReductionDelay{1};                //!< local-reduction-delay (ns, not modelled)
    bool modelSharedBus{false};                   //!< model-shared-bus (not modelled)
    double L{0};                                  //!< LogGP L (not modelled)
    double o{0};                                  //!< LogGP o (not modelled)
    double g{0};                                  //!< LogGP g (not modelled)
    double G{0};                                  //!< LogGP G (not modelled)
    double localMemBw{0};                         //!< local-mem-bw (GB/s)
    double peakPerf{0};                           //!< peak-perf (TFLOPS)
    bool rooflineEnabled{false};                  //!< roofline-enabled
    bool replayOnly{false};                       //!< replay-only (not modelled)
    bool traceEnabled{false};                     //!< trace-enabled (not modelled)
    bool trackLocalMem{false};                    //!< track-local-mem (not modelled)
    std::string localMemTraceFilename{"local_mem_trace"}; //!< local-mem-trace-filename
    int64_t boostMode{0};                                 //!< boost-mode (not modelled)
    std::string intraDimensionScheduling{"FIFO"};         //!< intra-dimension-scheduling
    std::string interDimensionScheduling{"baseline"};     //!< inter-dimension-scheduling
    std::string collectiveProtocol{"none"};               //!< collective-protocol
    std::vector<double> stepLatencyNs;                    //!< collective-step-latency-ns
    double launchLatencyNs{0};                            //!< collective-launch-latency-ns
    bool reductionFused{false};                           //!< reduction-fused
    double gateLatencyNs{0};                              //!< collective-gate-latency-ns
    std::string packetRouting;   //!< packet-routing (ASTRA-sim 1.0, not modelled)
    std::string injectionPolicy; //!< injection-policy (ASTRA-sim 1.0, not modelled)
    bool seprateLog{false};      //!< seprate-log (ASTRA-sim 1.0 spelling, not modelled)
    std::set<std::string> keys;  //!< keys present in the file

    /// \return whether the file set this key \param key the key
    bool Has(const std::string& key) const
    {
        return keys.count(key) != 0;
    }

    /**
     * Resolve a custom-collective prefix (as written in
     * all-*-implementation-custom): the first of: the path itself, relative
     * to the config file's directory, relative to each parent of it, relative
     * to \p baseDir, for which PREFIX.0.et (or .et.gz) exists.
     * \param prefix prefix from the file
     * \param baseDir one more directory to try ("" for none)
     * \return the resolved prefix, or "" if none exists
     */
    std::string ResolveCustomPrefix(const std::string& prefix,
                                    const std::string& baseDir = "") const;
};

/**
 * \ingroup astra-sim
 * Parse a system configuration: JSON (ASTRA-sim 2.0), or the ASTRA-sim 1.0
 * "key: value" text form (chosen when the file does not start with '{';
 * lists written as "ring_ring"). In JSON, numbers are JSON numbers and
 * switches are true / false or 0 / 1; the text form gives them as text.
 * \param path file
 * \return the configuration
 * \throw ConfigError naming the file and key (with "did you mean" for near misses)
 */
SystemConfig ParseSystemConfig(const std::string& path);

/**
 * \ingroup astra-sim
 * Parse a system configuration held in memory (JSON or 1.0 text form).
 * \param text content
 * \param name name used in messages
 * \return the configuration
 * \throw ConfigError naming \p name and the key
 */
SystemConfig ParseSystemConfigText(const std::string& text, const std::string& name);

/**
 * \ingroup astra-sim
 * The system layer's parameters of a configuration; loads the custom
 * collective traces (all-*-implementation-custom, resolved with
 * SystemConfig::ResolveCustomPrefix).
 * \param c the configuration
 * \param baseDir one more directory in which custom prefixes are looked up ("": none)
 * \return the parameters
 * \throw ConfigError when a custom prefix names no traces (WorkloadError on a bad trace)
 */
SystemParams ToSystemParams(const SystemConfig& c, const std::string& baseDir = "");

/**
 * \ingroup astra-sim
 * ParseSystemConfig() then ToSystemParams(): the one way a system
 * configuration file becomes SystemParams (astra-sim-runner, the examples,
 * AstraSimHelper::LoadSystemParams).
 * \param path file (JSON or 1.0 text form)
 * \param baseDir one more directory in which custom prefixes are looked up ("": none)
 * \return the parameters
 */
SystemParams LoadSystemParams(const std::string& path, const std::string& baseDir = "");

/**
 * \ingroup astra-sim
 * ASTRA-sim remote memory configuration.
 */
struct RemoteMemoryConfig
{
    std::string file;                                       //!< source file
    MemoryType memoryType{MemoryType::NO_MEMORY_EXPANSION}; //!< memory-type
    double remoteMemLatency{0};                             //!< remote-mem-latency (ns)
    double remoteMemBw{0};                                  //!< remote-mem-bw (GB/s)
    uint32_t numNodes{0};                                   //!< num-nodes
    uint32_t numNpusPerNode{0};                             //!< num-npus-per-node
    std::set<std::string> keys;                             //!< keys present in the file

    // The fabric keys of this module (memory nodes on the flow and RoCE backends,
    // doc/memory.rst); ASTRA-sim's analytical model does not use them.
    std::string memoryAttach;        //!< memory-attach: npu, leaf, spine, memory-leaf ("": default)
    int32_t memoryDimension{-1};     //!< memory-dimension (-1: default)
    uint32_t poolCount{1};           //!< pool-count (MEMORY_POOL)
    double memoryLinkBw{0};          //!< memory-link-bw, GB/s (2^30 B); 0: the dimension's
    double memoryLinkLatency{-1};    //!< memory-link-latency, ns; negative: the dimension's
    double memoryUplinkBw{0};        //!< memory-uplink-bw, GB/s (memory-leaf); 0: default
    uint64_t messageSize{1048576};   //!< message-size: bytes per RDMA READ / WRITE
    uint32_t outstandingRequests{4}; //!< outstanding-requests per NPU
    uint32_t channels{16};           //!< channels of each memory node's device
    double requestOverhead{0};       //!< request-overhead, ns per request on the device
    double memoryCapacity{0};        //!< memory-capacity, GiB per memory node; 0: unlimited
};

/// \return the fabric keys of the remote memory configuration (RemoteMemoryConfig)
const std::vector<std::string>& RemoteMemoryFabricKeys();

/**
 * \ingroup astra-sim
 * Parse a remote memory configuration. memory-type defaults to
 * NO_MEMORY_EXPANSION, which needs nothing else (latency, bandwidth, node
 * counts and the fabric keys given with it have no effect and warn); every
 * expansion type needs remote-mem-bw > 0; PER_NODE_MEMORY_EXPANSION also
 * num-nodes and num-npus-per-node >= 1. The fabric keys (RemoteMemoryFabricKeys)
 * are checked for range and for the type they apply to (pool-count and the
 * spine / memory-leaf attach points: MEMORY_POOL; memory-uplink-bw:
 * memory-attach memory-leaf).
 * \param path remote memory JSON
 * \return the configuration
 * \throw ConfigError naming file and key
 */
RemoteMemoryConfig ParseRemoteMemoryConfig(const std::string& path);

/// Communicator groups: id -> member NPUs (in file order).
using CommGroups = std::map<int64_t, std::vector<uint32_t>>;

/**
 * \ingroup astra-sim
 * Parse a communicator-group JSON `{"<id>": [npu, ...], ...}`. Ids are any integers
 * (including 0 and negatives). "empty" or "" as path = no groups.
 * \param path file
 * \param npus number of NPUs (0 = do not check the range)
 * \return groups
 * \throw ConfigError on a non-integer id, duplicate id, a non-list value, a bad or
 *        duplicate NPU in a group, an NPU out of range, an empty group
 */
CommGroups ParseCommGroups(const std::string& path, uint32_t npus = 0);

/**
 * \ingroup astra-sim
 * Same, from text.
 * \param text JSON
 * \param name name used in messages
 * \param npus number of NPUs (0 = do not check)
 * \return groups
 */
CommGroups ParseCommGroupsText(const std::string& text, const std::string& name, uint32_t npus = 0);

/**
 * \ingroup astra-sim
 * \param groups groups by id
 * \return the same groups keyed by the decimal id string (the pg_name a node uses)
 */
std::map<std::string, std::vector<uint32_t>> CommGroupsByName(const CommGroups& groups);

/**
 * \ingroup astra-sim
 * CommGroupsByName(ParseCommGroups(path, npus)): the groups as the system
 * layer takes them.
 * \param path file ("empty" or "": no groups)
 * \param npus number of NPUs (0 = do not check the range)
 * \return groups by pg_name
 */
std::map<std::string, std::vector<uint32_t>> LoadCommGroups(const std::string& path,
                                                            uint32_t npus = 0);

/**
 * \ingroup astra-sim
 * Parse the ns-3 variant's logical topology `{"logical-dims": ["8", "2"]}` (strings or
 * numbers, each > 0).
 * \param path file
 * \return the dimension sizes
 * \throw ConfigError naming file and cause
 */
std::vector<uint32_t> ParseLogicalTopology(const std::string& path);

} // namespace astra
} // namespace ns3

#endif /* ASTRA_CONFIG_H */
