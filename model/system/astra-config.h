/*
 * Parsers of ASTRA-sim 2.0 configuration files into plain structs: system
 * configuration (JSON, and the ASTRA-sim 1.0 "key: value" .txt form), remote
 * memory configuration, communicator groups, and the ns-3 variant's logical
 * topology. The system layer (system-params.h) is filled from these structs.
 */

#ifndef ASTRA_CONFIG_H
#define ASTRA_CONFIG_H

#include "ns3/astra-diagnostics.h"

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
 * Error in a configuration file; what() names the file, the key and the cause.
 */
class ConfigError : public InputError
{
  public:
    using InputError::InputError;
};

/// Options of the configuration parsers.
struct ConfigParseOptions
{
    /// Accept (and keep in SystemConfig::unknownKeys) keys this module does not know,
    /// instead of failing.
    bool allowUnknownKeys{false};
};

/// Collective algorithm family of one dimension, as named in *-implementation lists.
enum class ConfigAlgoKind : uint8_t
{
    RING,               //!< "ring", "oneRing"
    DIRECT,             //!< "direct", "directN", "oneDirect"
    HALVING_DOUBLING,   //!< "halvingDoubling", "oneHalvingDoubling"
    DOUBLE_BINARY_TREE, //!< "doubleBinaryTree"
};

/// \return e.g. "halvingDoubling"
const char* ConfigAlgoKindName(ConfigAlgoKind k);

/// One entry of an *-implementation list.
struct CollAlgorithm
{
    ConfigAlgoKind kind{ConfigAlgoKind::RING}; //!< family
    uint32_t window{0};                        //!< directN: N peers in flight (0 = all)
    bool flattened{false};                     //!< one* variants: all dimensions flattened into one
    std::string text;                          //!< the name as written

    /**
     * Parse "ring", "direct", "directN" (N > 0), "halvingDoubling", "doubleBinaryTree",
     * "oneRing", "oneDirect", "oneHalvingDoubling" (case as in ASTRA-sim).
     * \param name the name
     * \return the algorithm
     * \throw ConfigError (message without file context) on an unknown name
     */
    static CollAlgorithm Parse(const std::string& name);
};

/**
 * \ingroup astra-sim
 * ASTRA-sim system configuration. Every key of the ASTRA-sim 2.0 system JSON is a field;
 * `keys` records which ones the file set.
 */
struct SystemConfig
{
    std::string file;                               //!< source file
    std::string schedulingPolicy{"LIFO"};           //!< scheduling-policy: LIFO, FIFO, EXPLICIT
    std::string collectiveOptimization{"baseline"}; //!< baseline or localBWAware
    std::vector<CollAlgorithm> allReduceImpl;       //!< all-reduce-implementation
    std::vector<CollAlgorithm> allGatherImpl;       //!< all-gather-implementation
    std::vector<CollAlgorithm> reduceScatterImpl;   //!< reduce-scatter-implementation
    std::vector<CollAlgorithm> allToAllImpl;        //!< all-to-all-implementation
    /// all-*-implementation-custom: Chakra prefixes as written in the file
    std::vector<std::string> allReduceCustom;
    std::vector<std::string> allGatherCustom;         //!< all-gather-implementation-custom
    std::vector<std::string> reduceScatterCustom;     //!< reduce-scatter-implementation-custom
    std::vector<std::string> allToAllCustom;          //!< all-to-all-implementation-custom
    uint32_t preferredDatasetSplits{1};               //!< preferred-dataset-splits
    uint32_t activeChunksPerDimension{1};             //!< active-chunks-per-dimension
    double endpointDelay{10};                         //!< endpoint-delay (ns)
    double localReductionDelay{1};                    //!< local-reduction-delay (ns)
    bool modelSharedBus{false};                       //!< model-shared-bus
    double L{0};                                      //!< LogGP L
    double o{0};                                      //!< LogGP o
    double g{0};                                      //!< LogGP g
    double G{0};                                      //!< LogGP G
    double localMemBw{0};                             //!< local-mem-bw (GB/s)
    double peakPerf{0};                               //!< peak-perf (TFLOPS)
    bool rooflineEnabled{false};                      //!< roofline-enabled
    bool replayOnly{false};                           //!< replay-only
    bool traceEnabled{false};                         //!< trace-enabled
    bool trackLocalMem{false};                        //!< track-local-mem
    std::string localMemTraceFilename;                //!< local-mem-trace-filename
    int64_t boostMode{0};                             //!< boost-mode (accepted, ignored)
    std::string intraDimensionScheduling{"FIFO"};     //!< intra-dimension-scheduling (as written)
    std::string interDimensionScheduling{"baseline"}; //!< inter-dimension-scheduling
    std::string packetRouting;                        //!< packet-routing (ASTRA-sim 1.0, ignored)
    std::string injectionPolicy;                      //!< injection-policy (ASTRA-sim 1.0, ignored)
    bool seprateLog{false};     //!< seprate-log (ASTRA-sim 1.0 spelling, ignored)
    std::set<std::string> keys; //!< keys present in the file
    std::map<std::string, std::string> unknownKeys; //!< with allowUnknownKeys: key -> value text

    /// \return whether the file set this key
    bool Has(const std::string& key) const
    {
        return keys.count(key) != 0;
    }

    /**
     * Resolve a custom-collective prefix (as written in all-*-implementation-custom): the
     * first of: the path itself, relative to the config file's directory, relative to each
     * parent of it, for which PREFIX.0.et (or .et.gz) exists; else the path unchanged.
     * \param prefix prefix from the file
     * \return the resolved prefix
     */
    std::string ResolveCustomPrefix(const std::string& prefix) const;
};

/**
 * \ingroup astra-sim
 * Parse a system configuration: JSON (ASTRA-sim 2.0), or the ASTRA-sim 1.0 "key: value"
 * text form (chosen when the file does not start with '{'; lists written as
 * "ring_ring").
 * \param path file
 * \param opts options
 * \return the configuration
 * \throw ConfigError naming the file and key (with "did you mean" for near misses)
 */
SystemConfig ParseSystemConfig(const std::string& path,
                               const ConfigParseOptions& opts = ConfigParseOptions());

/**
 * \ingroup astra-sim
 * Parse a system configuration held in memory (JSON or 1.0 text form).
 * \param text content
 * \param name name used in messages
 * \param opts options
 * \return the configuration
 */
SystemConfig ParseSystemConfigText(const std::string& text,
                                   const std::string& name,
                                   const ConfigParseOptions& opts = ConfigParseOptions());

/// Remote (disaggregated) memory model.
enum class MemoryType : uint8_t
{
    NO_MEMORY_EXPANSION,
    PER_NODE_MEMORY_EXPANSION,
    PER_NPU_MEMORY_EXPANSION,
    MEMORY_POOL
};

/// \return e.g. "MEMORY_POOL"
const char* MemoryTypeName(MemoryType t);

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
};

/**
 * \ingroup astra-sim
 * \param path remote memory JSON
 * \param opts options
 * \return the configuration
 * \throw ConfigError naming file and key
 */
RemoteMemoryConfig ParseRemoteMemoryConfig(const std::string& path,
                                           const ConfigParseOptions& opts = ConfigParseOptions());

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
