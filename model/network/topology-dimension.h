/*
 * What a topology knows about each dimension type, in one place per type:
 * its name and spellings in the network configuration, the shape keys it
 * takes, how its switches and links are laid out and built, where an NPU
 * attaches, and its shortest paths. Topology (topology.cc) and the network
 * configuration reader (topology-reader.cc) ask the DimensionKind of a
 * dimension instead of switching on DimType; adding a dimension type means a
 * DimType value and one DimensionKind (topology-dimension.cc).
 */

#ifndef ASTRA_TOPOLOGY_DIMENSION_H
#define ASTRA_TOPOLOGY_DIMENSION_H

#include "ns3/topology.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

/// The optional shape keys of the switched dimension types (network configuration).
enum class ShapeKey : uint8_t
{
    HOSTS_PER_LEAF,   //!< hosts_per_leaf (DimensionSpec::hostsPerLeaf)
    SPINES,           //!< spines
    UPLINK_BANDWIDTH, //!< uplink_bandwidth
    UPLINK_LATENCY,   //!< uplink_latency
    OVERSUBSCRIPTION, //!< oversubscription
    FAT_TREE_K,       //!< fat_tree_k
    RAILS,            //!< rails
    IN_SWITCH         //!< in_switch (DimensionSpec::inSwitch: 0 or 1)
};

/// \return every shape key, in the order of the network configuration's documentation
const std::vector<ShapeKey>& AllShapeKeys();
/// \return the key as written in the network configuration ("hosts_per_leaf") \param k key
const char* ShapeKeyName(ShapeKey k);
/// \return whether \p s sets \p k (a value other than the default) \param s spec \param k key
bool HasShapeKey(const DimensionSpec& s, ShapeKey k);

/// Where the links of one block of a dimension go (Topology::FromDimensions builds block by block).
struct DimensionBlock
{
    Topology* topo{nullptr};                //!< the topology under construction
    const DimensionSpec* spec{nullptr};     //!< the dimension
    const DimensionLayout* layout{nullptr}; //!< its layout
    int32_t dim{0};                         //!< dimension index
    uint32_t block{0};                      //!< block index
    uint32_t firstSwitch{0};                //!< node id of the block's first switch
    uint32_t stride{1};                     //!< product of the lower dimensions' sizes
    double rate{0};                         //!< NPU link rate (bytes per ns)
    double upRate{0};                       //!< switch-to-switch link rate (bytes per ns)
    double upLatencyNs{0};                  //!< switch-to-switch link latency

    /// \return the NPU at coordinate \p c of line \p r of the block \param r line \param c coord
    uint32_t Npu(uint32_t r, uint32_t c) const;
    /// Add an NPU-side link (NPU link rate and latency) \param a one end \param b the other
    void Link(uint32_t a, uint32_t b) const;
    /// Add a switch-to-switch link (uplink rate and latency) \param a one end \param b the other
    void Uplink(uint32_t a, uint32_t b) const;
};

/**
 * \ingroup astra-sim
 * The behaviour of one dimension type. Stateless; one instance per DimType
 * (GetDimensionKind). The layout conventions (link and switch ids of a block)
 * are described at the top of topology.cc.
 */
class DimensionKind
{
  public:
    virtual ~DimensionKind() = default;

    /// \return the type
    virtual DimType Type() const = 0;
    /// \return the name in files and messages ("FullyConnected")
    virtual const char* Name() const = 0;
    /// \return the spellings a file may use, lower case without '-' / '_' ("fc")
    virtual std::vector<std::string> Spellings() const = 0;
    /// \return whether the shape key \p k applies to this type \param k the key
    virtual bool TakesShapeKey(ShapeKey k) const;
    /**
     * \return the links per NPU an older-style file's `links-count` counts
     * for one modelled link of this type (its bandwidth is scaled by
     * links / this, at least 1)
     * \param npus NPUs along the dimension
     */
    virtual double LinksPerModelledLink(uint32_t npus) const;
    /**
     * Check the shape and fill the layout's counts (linksPerBlock,
     * switchesPerBlock and the type's own fields; `blocks` is preset to the
     * number of lines).
     * \param s the dimension
     * \param stride product of the lower dimensions' sizes
     * \param lay the layout
     * \throw std::invalid_argument (message without the "dimension d (Type)" prefix)
     */
    virtual void Layout(const DimensionSpec& s, uint64_t stride, DimensionLayout& lay) const = 0;
    /// \return the tier of switch \p i of a block \param lay layout \param i index in the block
    virtual SwitchTier TierOf(const DimensionLayout& lay, uint32_t i) const;
    /// Add the links of one block, in link-id order \param b the block
    virtual void AddLinks(const DimensionBlock& b) const = 0;
    /**
     * \return the switch an NPU attaches to (UINT32_MAX for switch-less types)
     * \param lay layout
     * \param sw0 first switch of the NPU's block
     * \param r the NPU's line within the block
     * \param c the NPU's coordinate
     */
    virtual uint32_t AttachSwitch(const DimensionLayout& lay,
                                  uint32_t sw0,
                                  uint32_t r,
                                  uint32_t c) const;
    /**
     * Append the shortest path from coordinate \p cs to \p cd of one line.
     * \param lay layout
     * \param d dimension index (path hash)
     * \param line the line (path hash; line within the block = line % linesPerBlock)
     * \param cs source coordinate
     * \param cd destination coordinate (!= cs)
     * \param first first link id of the line's block
     * \param hops the path (appended)
     */
    virtual void AppendHops(const DimensionLayout& lay,
                            uint32_t d,
                            uint32_t line,
                            uint32_t cs,
                            uint32_t cd,
                            uint64_t first,
                            std::vector<Topology::Hop>& hops) const = 0;
};

/**
 * \ingroup astra-sim
 * \return the behaviour of a dimension type
 * \param t the type
 */
const DimensionKind& GetDimensionKind(DimType t);

/**
 * \ingroup astra-sim
 * \return every dimension type's behaviour, in DimType order
 */
const std::vector<const DimensionKind*>& GetDimensionKinds();

} // namespace astra
} // namespace ns3

#endif /* ASTRA_TOPOLOGY_DIMENSION_H */
