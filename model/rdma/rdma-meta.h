/*
 * RdmaMeta: the parsed form of a RoCEv2 (or PFC) frame's headers. The frame's
 * bytes (Ethernet/802.1Q/IPv4/UDP/BTH/ext/payload/ICRC) are real and are what
 * pcap sees; RdmaMeta travels beside the Ptr<Packet> through RdmaChannel and
 * the device queues so that switches and NICs never re-parse headers on the
 * per-hop path. Whoever changes a header field that is on the wire (ECN CE
 * mark, INT) changes both (see RoceFrame::SetCe / RoceFrame::Sync).
 * Model-only fields that are NOT serialized into the bytes: sendTimeNs, the
 * INT stack, srcQp, a switch's inPort and the message fields of a last packet (immTag,
 * msgUser, msgUser2, msgPostTs, msgBytes). They travel in the meta only (frameBytes does not
 * include them), but they travel IN THE FRAME: a receiver learns nothing through pointers to the
 * sender's objects, so a frame that crosses to another MPI rank (RdmaRemoteChannel) carries
 * everything its receiver needs.
 */

#ifndef RDMA_META_H
#define RDMA_META_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace ns3
{

/// Frame classes the device distinguishes.
enum class RdmaFrameKind : uint8_t
{
    ROCE = 0, //!< RoCEv2 over UDP/IPv4 (data, ACK/NAK, CNP, READ)
    PFC = 1   //!< 802.1Qbb MAC control frame
};

/// BTH opcodes used by the module (RC transport, RoCEv2 CNP).
namespace RoceOpcode
{
constexpr uint8_t SEND_FIRST = 0x00;
constexpr uint8_t SEND_MIDDLE = 0x01;
constexpr uint8_t SEND_LAST = 0x02;
constexpr uint8_t SEND_LAST_IMM = 0x03; //!< SEND Last with Immediate (ImmDt)
constexpr uint8_t SEND_ONLY = 0x04;
constexpr uint8_t SEND_ONLY_IMM = 0x05; //!< SEND Only with Immediate (ImmDt)
constexpr uint8_t WRITE_FIRST = 0x06;
constexpr uint8_t WRITE_MIDDLE = 0x07;
constexpr uint8_t WRITE_LAST = 0x08;
constexpr uint8_t WRITE_LAST_IMM = 0x09; //!< RDMA WRITE Last with Immediate (ImmDt)
constexpr uint8_t WRITE_ONLY = 0x0A;
constexpr uint8_t WRITE_ONLY_IMM = 0x0B; //!< RDMA WRITE Only with Immediate (RETH, ImmDt)
constexpr uint8_t READ_REQUEST = 0x0C;
constexpr uint8_t READ_RESP_FIRST = 0x0D;
constexpr uint8_t READ_RESP_MIDDLE = 0x0E;
constexpr uint8_t READ_RESP_LAST = 0x0F;
constexpr uint8_t READ_RESP_ONLY = 0x10;
constexpr uint8_t ACK = 0x11;
constexpr uint8_t CNP = 0x81;
} // namespace RoceOpcode

/// One hop of in-band telemetry (HPCC).
struct IntHop
{
    uint64_t timeNs{0};    //!< time the frame left the egress port
    uint64_t txBytes{0};   //!< bytes the egress port has sent so far
    uint32_t qlenBytes{0}; //!< egress queue length at dequeue
    uint32_t rateMbps{0};  //!< egress link rate
};

constexpr uint8_t kMaxIntHops = 5; //!< INT stack depth

/**
 * \ingroup astra-sim
 * Parsed headers of one frame (plain data, copied by value).
 *
 * Two parts, each on one cache line of a frame slot (RdmaFrameSlot; static_asserts in
 * rdma-net-device.h):
 * - the **per-hop part** (kind ... sendTimeNs): every frame's, read at every hop and on
 *   every frame a host receives;
 * - the **end-host part** (immTag ... immData): valid only in a RoCE frame whose opcode
 *   carries any of it (CarriesEndHostFields: the first packet of a WRITE, the last or
 *   only packet of a WRITE or SEND, a READ request). The middle packets of a message,
 *   READ responses, ACKs and CNPs leave it as it was (nothing reads it in them), so the
 *   most frequent frames are built, copied and read on one line.
 *
 * The PFC fields are valid in PFC frames only, the INT stack up to intHops.
 */
struct RdmaMeta
{
    // ---- per-hop part: with RdmaQueuedFrame's packet pointer, one line of a slot
    RdmaFrameKind kind{RdmaFrameKind::ROCE}; //!< frame class
    uint8_t priority{0};                     //!< 802.1Q PCP (egress queue index 0..7)
    uint8_t ecn{0};                          //!< IPv4 ECN bits (0 Not-ECT, 2 ECT(0), 3 CE)
    uint8_t opcode{0};                       //!< BTH opcode
    uint8_t ackReq{0};                       //!< BTH AckReq bit
    uint8_t aethSyndrome{0};                 //!< AETH syndrome (ACK/NAK)
    uint8_t intHops{0};                      //!< valid entries in intStack
    uint8_t ttl{64};                         //!< IPv4 TTL (decremented per routed hop)
    uint32_t srcIp{0};                       //!< IPv4 source (host order)
    uint32_t dstIp{0};                       //!< IPv4 destination (host order)
    uint16_t sport{0};                       //!< UDP source port (ECMP entropy)
    uint16_t dport{4791};                    //!< UDP destination port
    uint32_t destQp{0};                      //!< BTH destination QP (24 bits)
    uint32_t psn{0};                         //!< BTH PSN (24 bits) / AETH-acked PSN for ACKs
    uint32_t msn{0};                         //!< AETH MSN (24 bits)
    uint32_t payload{0};                     //!< RDMA payload bytes carried
    uint32_t frameBytes{0}; //!< Ethernet frame bytes incl. FCS (excl. preamble/IFG)
    /**
     * Model-only: the sending QP's number (a real RC responder knows it from the
     * connection set-up). A responder whose end was opened passively (the requester
     * lives on another MPI rank) learns the requester's QP number from it, and a
     * requester learns the responder's from the first ACK/NAK/CNP/READ response.
     */
    uint32_t srcQp{0};
    /// Model-only, switch-local: the ingress port (and priority and tag bits) of a frame
    /// queued in a switch, for the MMU's release at dequeue (RdmaSwitch)
    uint32_t inPort{0};
    /// Model-only: sender timestamp, echoed by the ACK for RTT samples (TIMELY/Swift)
    uint64_t sendTimeNs{0};

    // ---- end-host part (CarriesEndHostFields): the next line of a slot
    /// Model-only, last packet of a WRITE/SEND: the message's user tag (as immediate data)
    uint64_t immTag{0};
    /// Model-only, last packet of a WRITE/SEND: the message's first user word
    uint64_t msgUser{0};
    /// Model-only, last packet of a WRITE/SEND: the message's second user word
    uint64_t msgUser2{0};
    /// Model-only, last packet of a WRITE/SEND: the message's post time (Time steps)
    int64_t msgPostTs{0};
    /// Model-only, last packet of a WRITE/SEND: the message's length in bytes
    uint64_t msgBytes{0};
    uint64_t rethVa{0};  //!< RETH virtual address (WRITE first/only, READ req)
    uint32_t rethLen{0}; //!< RETH DMA length
    uint32_t immData{0}; //!< ImmDt (opcodes *_IMM): 4 bytes of immediate data

    // ---- PFC frames only (kind PFC)
    uint16_t pfcClassEnable{0};   //!< PFC: class-enable vector
    uint16_t pfcQuanta[8]{};      //!< PFC: pause time per priority (512-bit-time quanta)
    IntHop intStack[kMaxIntHops]; //!< INT stack (only intHops entries valid; HPCC, Swift)

    /**
     * \return whether this frame carries the end-host part: a RoCE frame whose opcode has
     * a RETH, immediate data or the message fields of a last packet (every opcode but the
     * first and middle packets of a SEND, the middle packets of a WRITE, READ responses,
     * ACK and CNP)
     */
    bool CarriesEndHostFields() const
    {
        return kind == RdmaFrameKind::ROCE && opcode != RoceOpcode::SEND_FIRST &&
               opcode != RoceOpcode::SEND_MIDDLE && opcode != RoceOpcode::WRITE_MIDDLE &&
               !(opcode >= RoceOpcode::READ_RESP_FIRST && opcode <= RoceOpcode::READ_RESP_ONLY) &&
               opcode != RoceOpcode::ACK && opcode != RoceOpcode::CNP;
    }

    /**
     * Start the headers of a RoCE frame with opcode \p op in a pooled slot: the per-hop
     * part back to its defaults (intHops 0) with kind ROCE and opcode \p op, and the
     * end-host part to its defaults if \p op carries it (CarriesEndHostFields). The PFC
     * fields, the INT stack and a bare frame's end-host part keep what they held (nothing
     * reads them), so a middle packet is built on one line of its slot.
     * \param op the BTH opcode
     */
    void ResetRoce(uint8_t op);
    /**
     * Copy \p o: its per-hop part; its end-host part if it carries one; its PFC fields if
     * it is a PFC frame; its intHops valid INT entries. What is not copied keeps whatever
     * it held: nothing reads it.
     * \param o the headers to copy
     */
    void CopyFrom(const RdmaMeta& o);
};

static_assert(std::is_standard_layout_v<RdmaMeta> && std::is_trivially_copyable_v<RdmaMeta>,
              "RdmaMeta is copied by memcpy (here and between MPI ranks)");

/// The defaults ResetRoce copies.
inline const RdmaMeta kDefaultRdmaMeta{};

inline void
RdmaMeta::ResetRoce(uint8_t op)
{
    constexpr std::size_t kHop = offsetof(RdmaMeta, immTag);
    std::memcpy(static_cast<void*>(this), &kDefaultRdmaMeta, kHop);
    kind = RdmaFrameKind::ROCE;
    opcode = op;
    if (CarriesEndHostFields())
    {
        std::memcpy(reinterpret_cast<char*>(this) + kHop,
                    reinterpret_cast<const char*>(&kDefaultRdmaMeta) + kHop,
                    offsetof(RdmaMeta, pfcClassEnable) - kHop);
    }
}

inline void
RdmaMeta::CopyFrom(const RdmaMeta& o)
{
    if (&o == this)
    {
        return; // memcpy's ranges must not overlap
    }
    constexpr std::size_t kHop = offsetof(RdmaMeta, immTag);
    constexpr std::size_t kEnd = offsetof(RdmaMeta, pfcClassEnable);
    constexpr std::size_t kPfc = offsetof(RdmaMeta, intStack);
    std::memcpy(static_cast<void*>(this), &o, kHop);
    if (o.CarriesEndHostFields())
    {
        std::memcpy(reinterpret_cast<char*>(this) + kHop,
                    reinterpret_cast<const char*>(&o) + kHop,
                    kEnd - kHop);
    }
    else if (o.kind == RdmaFrameKind::PFC)
    {
        std::memcpy(reinterpret_cast<char*>(this) + kEnd,
                    reinterpret_cast<const char*>(&o) + kEnd,
                    kPfc - kEnd);
    }
    std::copy(o.intStack, o.intStack + std::min<uint8_t>(o.intHops, kMaxIntHops), intStack);
}

/// Per-frame bytes on the wire beside the frame itself: preamble+SFD (8) + IFG (12).
constexpr uint32_t kEthernetWireOverhead = 20;

} // namespace ns3

#endif /* RDMA_META_H */
