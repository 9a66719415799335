/*
 * RdmaForwardingTable: per-node next-hop table of the RoCE fabric, indexed by
 * destination host index (vector, no map on the per-packet path), with ECMP
 * port selection by a seeded hash over (srcIp, dstIp, sport, dport).
 * Used by RdmaSwitch, by RdmaTransitForwarder on hosts that forward transit
 * traffic, and by the host transport to pick its own egress port.
 *
 * Host addressing scheme of the module (RdmaAddressing, the same as
 * RdmaHostStack's default): host index i has IPv4 address 11.0.0.0 + i + 1,
 * so the index is ip - 0x0B000001.
 */

#ifndef RDMA_FORWARDING_TABLE_H
#define RDMA_FORWARDING_TABLE_H

#include "ns3/object.h"
#include "ns3/rdma-meta.h"

#include <cstdint>
#include <map>
#include <vector>

namespace ns3
{

/**
 * \ingroup astra-sim
 * Host index <-> IPv4 address mapping used by every RoCE component.
 */
namespace RdmaAddressing
{
constexpr uint32_t kMaxHosts = 1u << 24;       //!< hosts addressable by the scheme
constexpr uint32_t kInvalidHost = 0xFFFFFFFFu; //!< "not a host" marker

/// \return IPv4 address (host order) of host \p index: 11.0.0.0 + index + 1
inline uint32_t
HostIndexToIp(uint32_t index)
{
    return 0x0B000001u + index;
}

/// \return host index of an IPv4 address (host order) of the scheme
inline uint32_t
IpToHostIndex(uint32_t ip)
{
    return ip - 0x0B000001u; // out-of-scheme addresses give huge indices: no route
}
} // namespace RdmaAddressing

/**
 * \ingroup astra-sim
 * Next-hop port sets per destination host, and ECMP selection among them.
 */
class RdmaForwardingTable : public Object
{
  public:
    static TypeId GetTypeId(); //!< \return the TypeId
    RdmaForwardingTable();
    ~RdmaForwardingTable() override;

    /// Remove every entry.
    void Clear();
    /**
     * Set the equal-cost port set towards a destination host.
     * \param dstHostIndex destination host index
     * \param ports port indices on this node (order is kept)
     * \param hops hop count from this node to the destination (informational)
     */
    void SetRoute(uint32_t dstHostIndex, const std::vector<uint32_t>& ports, uint32_t hops);
    /// Add one port to the set towards a destination host.
    void AddRoute(uint32_t dstHostIndex, uint32_t port);

    /// \return the equal-cost ports towards a host (empty: no route)
    /**
     * The equal-cost port set towards a destination host (set-up and tests; the per-packet
     * path uses SelectPort).
     * \param dstHostIndex destination host index
     * \return the ports in the order given, empty if there is no route
     */
    std::vector<uint32_t> GetPorts(uint32_t dstHostIndex) const;

    uint32_t GetHops(uint32_t dstHostIndex) const;

    /// \return number of destination entries (max host index + 1)
    uint32_t GetNDestinations() const
    {
        return static_cast<uint32_t>(m_entry.size());
    }

    /// Set the per-node ECMP hash seed.
    void SetSeed(uint32_t seed)
    {
        m_seed = seed;
    }

    /// \return the per-node ECMP hash seed
    uint32_t GetSeed() const
    {
        return m_seed;
    }

    /**
     * Pick the egress port for a frame (ECMP over GetPorts(host of meta.dstIp)).
     * \param meta parsed headers
     * \return port index, or kNoRoute
     */
    uint32_t SelectPort(const RdmaMeta& meta) const
    {
        const uint32_t dst = RdmaAddressing::IpToHostIndex(meta.dstIp);
        if (dst >= m_entry.size())
        {
            return kNoRoute;
        }
        const uint32_t e = m_entry[dst];
        if (e < kSetBit)
        {
            return e; // the one port
        }
        if (e == kNoRoute)
        {
            return kNoRoute;
        }
        const uint32_t* set = &m_sets[e & ~kSetBit]; // [n, port 0, ..., port n-1]
        return set[1 + Hash(meta.srcIp, meta.dstIp, meta.sport, meta.dport, m_seed) % set[0]];
    }

    /**
     * A hint, shortly before SelectPort(meta): prefetch its entry (changes nothing).
     * \param meta parsed headers
     */
    void PrefetchEntry(const RdmaMeta& meta) const
    {
        const uint32_t dst = RdmaAddressing::IpToHostIndex(meta.dstIp);
        if (dst < m_entry.size())
        {
            __builtin_prefetch(&m_entry[dst]);
        }
    }

    /**
     * The ECMP hash: a seeded 32-bit mix of the flow 4-tuple (murmur3 finalizer).
     * \param srcIp source IPv4 (host order)
     * \param dstIp destination IPv4
     * \param sport UDP source port
     * \param dport UDP destination port
     * \param seed per-switch seed
     * \return hash value
     */
    static uint32_t Hash(uint32_t srcIp,
                         uint32_t dstIp,
                         uint16_t sport,
                         uint16_t dport,
                         uint32_t seed)
    {
        uint32_t h = seed ^ 0x9E3779B9u;
        h = Mix(h, srcIp);
        h = Mix(h, dstIp);
        h = Mix(h, (static_cast<uint32_t>(sport) << 16) | dport);
        h ^= 12;
        h ^= h >> 16;
        h *= 0x85EBCA6Bu;
        h ^= h >> 13;
        h *= 0xC2B2AE35u;
        h ^= h >> 16;
        return h;
    }

    static constexpr uint32_t kNoRoute = 0xFFFFFFFFu; //!< SelectPort: no route

  private:
    /// throw astra::InputError if a host index exceeds the address plan \param dstHostIndex it
    static void CheckHost(uint32_t dstHostIndex);

    /// murmur3 block mix
    static uint32_t Mix(uint32_t h, uint32_t k)
    {
        k *= 0xCC9E2D51u;
        k = (k << 15) | (k >> 17);
        k *= 0x1B873593u;
        h ^= k;
        h = (h << 13) | (h >> 19);
        return h * 5 + 0xE6546B64u;
    }

    /// entry of a destination with two or more ports: kSetBit | offset of its set in m_sets
    static constexpr uint32_t kSetBit = 0x80000000u;

    /**
     * Store the port set of a destination (shared with every other destination that has the
     * same set, in the same order).
     * \param dstHostIndex destination host index
     * \param ports port indices on this node
     */
    void Store(uint32_t dstHostIndex, const std::vector<uint32_t>& ports);

    // One 4-byte word per destination: the port itself when there is one (kNoRoute when there
    // is none), else kSetBit | the offset of [n, ports...] in m_sets. A switch's row stays a
    // few KiB at thousands of hosts, and a lookup touches one word (and, with ECMP, a set
    // that all destinations behind the same uplinks share).
    std::vector<uint32_t> m_entry;                      //!< per destination host
    std::vector<uint32_t> m_sets;                       //!< ECMP sets: [n, port 0, ..., n-1]
    std::map<std::vector<uint32_t>, uint32_t> m_setIds; //!< set-up only: set -> offset
    std::vector<uint32_t> m_hops;                       //!< hop count per destination host
    uint32_t m_seed{0};                                 //!< ECMP seed
};

} // namespace ns3

#endif /* RDMA_FORWARDING_TABLE_H */
