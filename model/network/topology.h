/*
 * One topology description shared by every backend: NPUs, switches, memory
 * nodes and full-duplex links with rate and delay, organised in ASTRA-sim
 * dimensions. The analytical and flow-level backends compute on it; the RoCE
 * helpers build ns-3 nodes and links from it.
 */

#ifndef ASTRA_TOPOLOGY_H
#define ASTRA_TOPOLOGY_H

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{
namespace astra
{

/// Building block of one network dimension (ASTRA-sim network YAML).
enum class DimType : uint8_t
{
    RING,            //!< bidirectional ring, NPU to NPU
    FULLY_CONNECTED, //!< a link per NPU pair
    SWITCH,          //!< one switch per line
    CLOS,            //!< two-tier leaf-spine Clos per line
    FAT_TREE,        //!< three-tier k-ary fat-tree per line
    RAIL_CLOS        //!< rail-optimized leaf-spine Clos shared by a group of lines (rails)
};

/// \return "Ring", "FullyConnected", "Switch", "Clos", "FatTree" or "RailClos"
const char* DimTypeName(DimType t);

/**
 * One dimension as ASTRA-sim describes it, plus the shape of the switched
 * dimension types (Clos, FatTree, RailClos). The shape fields keep their
 * defaults (0) for Ring, FullyConnected and Switch.
 *
 * bandwidthGBps and latencyNs are those of the NPU links (NPU to leaf / edge
 * switch). Switch-to-switch links have uplinkGBps and uplinkLatencyNs.
 */
struct DimensionSpec
{
    DimType type{DimType::RING}; //!< building block
    uint32_t npus{1};            //!< NPUs along this dimension
    double bandwidthGBps{0};     //!< per link, per direction; GB = 2^30 bytes (ASTRA-sim)
    double latencyNs{0};         //!< per link
    /// Clos / RailClos: NPUs per leaf switch (0: all NPUs of a line on one leaf)
    uint32_t hostsPerLeaf{0};
    /// Clos / RailClos: spine switches per fabric (0: as many as hostsPerLeaf)
    uint32_t spines{0};
    /// switch-to-switch link rate in GB/s (0: from oversubscription)
    double uplinkGBps{0};
    /// switch-to-switch link latency in ns (negative: latencyNs)
    double uplinkLatencyNs{-1};
    /**
     * Leaf (edge) oversubscription: NPU-facing capacity over uplink capacity
     * of a leaf; sets uplinkGBps when that is 0 (0 here: 1, non-blocking).
     * Give uplinkGBps or oversubscription, not both.
     */
    double oversubscription{0};
    /// FatTree: switch radix k, even (0: from npus = k^3/4)
    uint32_t fatTreeK{0};
    /**
     * RailClos: lines (rails) sharing one fabric, a divisor of the product of
     * the lower dimensions' sizes (0: that product, i.e. every NPU of a
     * scale-up domain below has its own rail of one common fabric)
     */
    uint32_t rails{0};
    /**
     * Fraction of the link rate that carries payload (link-efficiency, 0 < e <= 1):
     * the link layer's own overhead, e.g. NVLink flit headers and flow control
     * (NVLink4: NCCL models 20.6 of 25 GB/s per link). Every link of the
     * dimension (uplinks included) runs at bandwidth x efficiency on every
     * backend; the RoCE backend still adds its own packet headers on top.
     */
    double linkEfficiency{1.0};
};

/**
 * \return a two-tier leaf-spine Clos dimension
 * \param npus NPUs (hosts) along the dimension
 * \param hostsPerLeaf NPUs per leaf switch (divides npus)
 * \param spines spine switches (each leaf has one link to every spine)
 * \param hostGBps NPU link rate (GB/s, 2^30 bytes)
 * \param hostLatencyNs NPU link latency
 * \param uplinkGBps leaf-spine link rate (GB/s)
 * \param uplinkLatencyNs leaf-spine link latency
 */
DimensionSpec ClosDimension(uint32_t npus,
                            uint32_t hostsPerLeaf,
                            uint32_t spines,
                            double hostGBps,
                            double hostLatencyNs,
                            double uplinkGBps,
                            double uplinkLatencyNs);

/**
 * \return a three-tier k-ary fat-tree dimension of k^3/4 NPUs
 * \param k switch radix (even)
 * \param hostGBps NPU link rate (GB/s)
 * \param hostLatencyNs NPU link latency
 * \param oversubscription edge oversubscription (1: full bisection)
 * \param uplinkLatencyNs switch-to-switch latency (negative: hostLatencyNs)
 */
DimensionSpec FatTreeDimension(uint32_t k,
                               double hostGBps,
                               double hostLatencyNs,
                               double oversubscription = 1,
                               double uplinkLatencyNs = -1);

/// \return rate in ASTRA-sim GB/s (2^30 bytes) of a rate in Gbit/s \param gbps Gbit/s
inline double
GbpsToGBps(double gbps)
{
    return gbps * 1e9 / 8.0 / 1073741824.0;
}

/// Role of a switch node of the topology.
enum class SwitchTier : uint8_t
{
    NONE,  //!< not a switch (or one added by AddNode)
    LINE,  //!< the switch of a Switch dimension's line
    LEAF,  //!< Clos / RailClos leaf; FatTree edge
    SPINE, //!< Clos / RailClos spine; FatTree aggregation
    CORE   //!< FatTree core
};

/// Kinds of nodes in the description.
enum class TopoNodeKind : uint8_t
{
    NPU,
    SWITCH,
    MEMORY
};

/// A full-duplex link. Each direction is an independent resource.
struct TopoLink
{
    uint32_t a{0};        //!< node id of one end
    uint32_t b{0};        //!< node id of the other end
    double bytesPerNs{0}; //!< rate of each direction
    double latencyNs{0};  //!< propagation delay
    int32_t dim{-1};      //!< dimension this link belongs to (-1: none)
};

/// How memory nodes are shared by the NPUs (MemoryPlacement::sharing).
enum class MemorySharing : uint8_t
{
    PER_NPU,  //!< a private memory node per NPU
    PER_NODE, //!< one memory node per npusPerNode consecutive NPUs (a server)
    POOL      //!< pool nodes shared by every NPU (an NPU stripes its requests over them)
};

/// Where memory nodes are linked to the network (MemoryPlacement::attach).
enum class MemoryAttach : uint8_t
{
    DEFAULT,    //!< by sharing and dimension (Topology::PlaceMemory)
    NPU,        //!< to an NPU (PER_NPU: its own; PER_NODE: the node's first; POOL: spread)
    LEAF,       //!< to the NPU-facing switch of the dimension (line switch, leaf, edge)
    SPINE,      //!< to the top tier of the dimension (spines; fat-tree cores; line switch)
    MEMORY_LEAF //!< to a new memory leaf switch linked to every top-tier switch of the dimension
};

/// \return "per_npu", "per_node" or "pool" (the network YAML's spelling) \param s the sharing
const char* MemorySharingName(MemorySharing s);
/// \return "npu", "leaf", "spine", "memory-leaf" or "default" \param a the attach point
const char* MemoryAttachName(MemoryAttach a);

/**
 * Memory nodes to place on a topology (Topology::PlaceMemory): how they are
 * shared, where they attach, and their links. Zero / negative fields take the
 * defaults documented with each field.
 */
struct MemoryPlacement
{
    MemorySharing sharing{MemorySharing::POOL}; //!< who uses which memory node
    uint32_t npusPerNode{1};                    //!< PER_NODE: NPUs per memory node (>= 1)
    uint32_t pools{1};                          //!< POOL: memory nodes (>= 1)
    MemoryAttach attach{MemoryAttach::DEFAULT}; //!< attach point
    /**
     * Dimension whose switches the nodes attach to, and whose NPU link gives
     * the default link rate and latency (-1: dimension 0 for PER_NPU and
     * PER_NODE, the last dimension for POOL)
     */
    int32_t dimension{-1};
    double linkGBps{0};       //!< memory node link rate, GB/s (2^30 B); 0: the dimension's
    double linkLatencyNs{-1}; //!< memory node link latency; negative: the dimension's
    /**
     * MEMORY_LEAF: rate of each memory leaf uplink (to a top-tier switch),
     * GB/s; 0: the dimension's uplink rate (its NPU link rate if it has none)
     */
    double uplinkGBps{0};
};

class DimensionKind;

/**
 * Index arithmetic of one dimension's switches and links (the layout is
 * described at the top of topology.cc), and the behaviour of its type.
 */
struct DimensionLayout
{
    const DimensionKind* kind{nullptr}; //!< the dimension type's behaviour
    uint32_t npus{0};                   //!< NPUs along the dimension
    uint32_t firstLink{0};              //!< first link id of the dimension
    uint32_t firstSwitch{0};            //!< first switch node id of the dimension
    uint32_t linesPerBlock{1};          //!< lines sharing a block (RailClos: rails)
    uint32_t blocks{0};                 //!< blocks (lines, RailClos: fabrics)
    uint64_t linksPerBlock{0};          //!< links of a block
    uint32_t switchesPerBlock{0};       //!< switches of a block
    uint32_t hostsPerLeaf{0};           //!< Clos / RailClos: NPUs per leaf; FatTree: k/2
    uint32_t leaves{0};                 //!< Clos / RailClos: leaves per line (rail)
    uint32_t spines{0};                 //!< Clos / RailClos: spines per block
    uint32_t half{0};                   //!< FatTree: k/2
    double uplinkGBps{0};               //!< resolved uplink rate
};

/**
 * \ingroup astra-sim
 * Topology description. Node ids 0..npuCount-1 are NPUs (NPU id = node id);
 * switches and memory nodes follow. NPU id -> per-dimension coordinates:
 * dimension 0 varies fastest.
 */
class Topology
{
  public:
    Topology() = default;

    /// Build the regular multi-dimensional topology of ASTRA-sim's YAML.
    static Topology FromDimensions(const std::vector<DimensionSpec>& dims);

    /**
     * Load an ASTRA-sim network configuration (topology-reader.cc): YAML with
     * the current keys `topology`, `npus_count`, `bandwidth`, `latency`, or
     * the older `topology-name`/`dimensions-count`/`topologies-per-dim`/
     * `units-count`/`links-count`/`link-latency`/`link-bandwidth` style (YAML
     * or JSON), plus the shape keys of the switched dimension types. Strict:
     * an unknown key, or a key of the other style, is an error with a "did you
     * mean"; keys of ASTRA-sim's older analytical network that this module
     * does not model (`nic-latency`, `router-latency`, `hbm-*`,
     * `dimension-type`) are accepted and warn when set to a value with an
     * effect there.
     * \param path the file
     * \return the topology
     * \throw ConfigError naming the file, the key and the value
     */
    static Topology FromFile(const std::string& path);

    uint32_t GetNpuCount() const;                  //!< \return number of NPUs
    uint32_t GetNodeCount() const;                 //!< \return NPUs + switches + memory nodes
    TopoNodeKind GetNodeKind(uint32_t node) const; //!< \return kind of a node
    const std::vector<DimensionSpec>& GetDimensions() const; //!< \return the dimensions
    uint32_t GetDimensionCount() const;                      //!< \return number of dimensions

    /**
     * \return uplink rate in GB/s of a switched dimension (Clos, FatTree,
     * RailClos; 0 for other types), resolved from oversubscription
     * \param dim the dimension
     */
    double GetUplinkGBps(uint32_t dim) const;

    /// \return the role of a node (SwitchTier::NONE for NPUs and memory nodes) \param node id
    SwitchTier GetSwitchTier(uint32_t node) const;
    /// \return the dimension a switch was built for (-1: none) \param node id
    int32_t GetSwitchDimension(uint32_t node) const;
    /**
     * Switches of one dimension in one tier, in id order (attach points for
     * memory nodes or aggregation switches).
     * \param dim the dimension
     * \param tier the tier
     * \return switch node ids
     */
    std::vector<uint32_t> GetDimensionSwitches(uint32_t dim, SwitchTier tier) const;
    /**
     * \return the switch an NPU attaches to in a dimension (line switch,
     * leaf or edge), or UINT32_MAX for switch-less dimensions
     * \param npu the NPU
     * \param dim the dimension
     */
    uint32_t GetAttachSwitch(uint32_t npu, uint32_t dim) const;

    /**
     * Add a memory node linked to an existing node (an NPU or a switch, e.g.
     * a spine from GetDimensionSwitches()). The link has dimension -1.
     * \param node attach point
     * \param gbps link rate, GB/s (2^30 bytes)
     * \param latencyNs link latency
     * \return the memory node's id
     */
    uint32_t AttachMemoryNode(uint32_t node, double gbps, double latencyNs);

    /**
     * Place memory nodes (topology-memory.cc) and record which NPUs use them
     * (GetNpuMemory): PER_NPU node i serves NPU i; PER_NODE node g serves
     * NPUs g x npusPerNode ... (g + 1) x npusPerNode - 1; every NPU uses
     * every POOL node. Attach points, by sharing: PER_NPU and PER_NODE take
     * NPU (a link to the NPU / the node's first NPU) or LEAF (the switch that
     * NPU attaches to in the dimension); POOL takes NPU (pool p on NPU
     * p x N / pools), LEAF or SPINE (pool p on switch p x S / pools of the
     * dimension's NPU-facing or top tier, all lines together) or MEMORY_LEAF
     * (one new switch, linked to every top-tier switch of the dimension, with
     * the pools behind it). DEFAULT: NPU for PER_NPU; LEAF for PER_NODE
     * (NPU when the dimension has no switches); SPINE for POOL (NPU without
     * switches). A topology takes one placement.
     * \param p the placement
     * \return the memory node ids, in order
     * \throw std::invalid_argument naming the field and the cause (e.g. a
     *        switch-less dimension for LEAF, a second placement)
     */
    std::vector<uint32_t> PlaceMemory(const MemoryPlacement& p);
    /// \return whether PlaceMemory was called
    bool HasMemoryPlacement() const;
    /// \return the placement given to PlaceMemory (defaults resolved)
    const MemoryPlacement& GetMemoryPlacement() const;
    /**
     * Declare which memory nodes an NPU uses (its requests are striped over
     * them in order); PlaceMemory does it for its nodes, a scenario that
     * attaches memory nodes itself (AttachMemoryNode) calls it.
     * \param npu the NPU
     * \param memoryNodes memory node ids (each of kind MEMORY)
     * \throw std::invalid_argument / std::out_of_range for bad ids
     */
    void AssignMemory(uint32_t npu, const std::vector<uint32_t>& memoryNodes);
    /// \return the memory nodes an NPU uses (empty if none) \param npu the NPU
    const std::vector<uint32_t>& GetNpuMemory(uint32_t npu) const;
    /// \return every memory node id, in id order
    std::vector<uint32_t> GetMemoryNodes() const;

    std::vector<uint32_t> GetCoordinates(uint32_t npu) const;
    /// \return the NPU id at the given coordinates
    uint32_t GetNpuId(const std::vector<uint32_t>& coords) const;
    /// \return coordinate of an NPU along one dimension
    uint32_t GetCoordinate(uint32_t npu, uint32_t dim) const;
    /// \return the NPUs of npu's line along dim, ordered by coordinate (npu included)
    std::vector<uint32_t> GetDimensionPeers(uint32_t npu, uint32_t dim) const;

    const std::vector<TopoLink>& GetLinks() const; //!< \return all links
    /// \return ids of links incident to a node
    const std::vector<uint32_t>& GetNodeLinks(uint32_t node) const;

    /**
     * Shortest path between two NPUs inside one dimension (they must differ
     * only in that coordinate): Ring takes the shorter way round (ties go the
     * increasing direction), FullyConnected is one hop, Switch is two hops
     * through that line's switch. Clos and RailClos: two hops under one leaf,
     * else four through a spine; FatTree: two hops under one edge, four
     * inside a pod, six across pods. Where several shortest paths exist, the
     * spine / aggregation / core switch is picked by a hash of the dimension,
     * line and the two coordinates (deterministic, spreads load like ECMP).
     * With dim = -1, the path crosses dimensions in increasing order
     * (dimension-order routing). When an end is a memory node (dim = -1
     * only), the path is AppendNodeRoute's.
     * \return directed hops as (link id, direction) where direction 0 = a->b
     */
    struct Hop
    {
        uint32_t link; //!< link id
        uint8_t dir;   //!< 0: a->b, 1: b->a
    };

    std::vector<Hop> Route(uint32_t src, uint32_t dst, int32_t dim = -1) const; //!< see above

    /**
     * As Route(), appending the hops to a caller-owned vector (no allocation
     * when it has capacity). Throws std::out_of_range for bad NPU ids or
     * dimensions, std::invalid_argument when dim >= 0 and the NPUs differ in
     * another dimension (or an end is a memory node).
     */
    void AppendRoute(uint32_t src, uint32_t dst, int32_t dim, std::vector<Hop>& hops) const;

    /**
     * Shortest path (hop count) between two nodes of any kind, over switches
     * and over hosts with several links (they relay, as the fabric's transit
     * forwarders do); where several exist, each hop is picked by a hash of
     * the two ends (deterministic). Route() and AppendRoute() use it when an
     * end is a memory node. Paths are computed once per pair and kept.
     * \param src source node
     * \param dst destination node
     * \param hops the path (appended)
     * \throw std::out_of_range for bad ids, std::invalid_argument when no path exists
     */
    void AppendNodeRoute(uint32_t src, uint32_t dst, std::vector<Hop>& hops) const;

    /// Add a node; \return its id (used by helpers for memory nodes etc.)
    uint32_t AddNode(TopoNodeKind kind);
    /// Add a full-duplex link; \return its id
    uint32_t AddLink(uint32_t a, uint32_t b, double bytesPerNs, double latencyNs, int32_t dim);

    /// Where this description came from (file name), for messages.
    std::string source;

  private:
    uint32_t m_npuCount{0};
    std::vector<DimensionSpec> m_dims;
    std::vector<DimensionLayout> m_layout; //!< per dimension, plus one past the last
    std::vector<TopoNodeKind> m_kinds;
    std::vector<TopoLink> m_links;
    std::vector<std::vector<uint32_t>> m_nodeLinks;
    std::vector<SwitchTier> m_tier;   //!< per node
    std::vector<int32_t> m_switchDim; //!< per node: dimension of a built switch, else -1
    // memory nodes (topology-memory.cc)
    std::vector<std::vector<uint32_t>> m_npuMemory; //!< per NPU: memory nodes it uses
    MemoryPlacement m_memPlacement;                 //!< PlaceMemory's placement
    bool m_hasMemPlacement{false};                  //!< PlaceMemory was called
    /// AppendNodeRoute's paths by (src << 32 | dst)
    mutable std::unordered_map<uint64_t, std::vector<Hop>> m_nodeRoutes;
    /// AppendNodeRoute's hop distances to a destination (a bounded cache)
    mutable std::unordered_map<uint32_t, std::vector<uint32_t>> m_nodeDist;
};

/// Convert ASTRA-sim GB/s (2^30 bytes) to bytes per ns.
inline double
GBpsToBytesPerNs(double gbps)
{
    return gbps * 1073741824.0 / 1e9;
}

} // namespace astra
} // namespace ns3

#endif /* ASTRA_TOPOLOGY_H */
