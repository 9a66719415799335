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
#include <vector>

namespace ns3
{
namespace astra
{

/// Building block of one network dimension (ASTRA-sim network YAML).
enum class DimType : uint8_t
{
    RING,
    FULLY_CONNECTED,
    SWITCH
};

/// \return "Ring", "FullyConnected" or "Switch"
const char* DimTypeName(DimType t);

/// One dimension as ASTRA-sim describes it.
struct DimensionSpec
{
    DimType type{DimType::RING}; //!< building block
    uint32_t npus{1};            //!< NPUs along this dimension
    double bandwidthGBps{0};     //!< per link, per direction; GB = 2^30 bytes (ASTRA-sim)
    double latencyNs{0};         //!< per link
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
     * Load an ASTRA-sim network YAML (current keys `topology`, `npus_count`,
     * `bandwidth`, `latency`; older `topology-name`/`topologies-per-dim`/
     * `units-count`/`link-latency`/`link-bandwidth` style; also the older JSON
     * files with the same keys). Throws std::runtime_error naming the file and
     * the key on bad input.
     */
    static Topology FromFile(const std::string& path);

    uint32_t GetNpuCount() const;                  //!< \return number of NPUs
    uint32_t GetNodeCount() const;                 //!< \return NPUs + switches + memory nodes
    TopoNodeKind GetNodeKind(uint32_t node) const; //!< \return kind of a node
    const std::vector<DimensionSpec>& GetDimensions() const; //!< \return the dimensions
    uint32_t GetDimensionCount() const;                      //!< \return number of dimensions

    /// \return coordinates of an NPU, one per dimension (dimension 0 fastest)
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
     * through that line's switch. With dim = -1, the path crosses dimensions in
     * increasing order (dimension-order routing).
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
     * another dimension.
     */
    void AppendRoute(uint32_t src, uint32_t dst, int32_t dim, std::vector<Hop>& hops) const;

    /// Add a node; \return its id (used by helpers for memory nodes etc.)
    uint32_t AddNode(TopoNodeKind kind);
    /// Add a full-duplex link; \return its id
    uint32_t AddLink(uint32_t a, uint32_t b, double bytesPerNs, double latencyNs, int32_t dim);

    /// Where this description came from (file name), for messages.
    std::string source;

  private:
    /// Append the hops from coordinate cs to cd on line `line` of dimension d.
    void AppendDimHops(uint32_t d,
                       uint32_t line,
                       uint32_t cs,
                       uint32_t cd,
                       std::vector<Hop>& hops) const;

    uint32_t m_npuCount{0};
    std::vector<DimensionSpec> m_dims;
    std::vector<TopoNodeKind> m_kinds;
    std::vector<TopoLink> m_links;
    std::vector<std::vector<uint32_t>> m_nodeLinks;
    /// per dimension, per line (NPUs sharing all other coordinates): switch node id or UINT32_MAX
    std::vector<std::vector<uint32_t>> m_lineSwitch;
    /// per dimension: base link id of that dimension's links (for O(1) lookups)
    std::vector<uint32_t> m_dimFirstLink;
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
