/*
 * RoCEv2 wire format. One Header object (RoceHeader) serializes everything in
 * front of the payload: Ethernet II + 802.1Q tag (PCP = priority) + IPv4 (ECN,
 * TTL, valid header checksum) + UDP (dst 4791, src = flow entropy, checksum 0
 * as RoCEv2 allows) + BTH (12 B) + RETH (16 B: WRITE First/Only, READ Request)
 * (+ ImmDt, 4 B, on WRITE Only with Immediate; ImmDt alone on WRITE Last /
 * SEND Last / SEND Only with Immediate)
 * or AETH (4 B: Acknowledge, READ Response First/Last/Only) or the 16 reserved
 * bytes of a CNP. One Trailer (RoceIcrcTrailer) holds the 4-byte ICRC. The
 * payload is the packet's zero area (no allocation for payload bytes).
 *
 * Sizes (bytes in the packet; the 4-byte FCS is not in the packet but counts in
 * RdmaMeta::frameBytes and in serialization):
 *   WRITE ONLY, 1000 B payload: 18 + 20 + 8 + 12 + 16 + 1000 + 4 = 1078 (frameBytes 1082)
 *   ACK: 18 + 20 + 8 + 12 + 4 + 4 = 66 (70); CNP: 18 + 20 + 8 + 12 + 16 + 4 = 78 (82)
 *   PFC: 60 (64)
 *
 * RoceFrame is the builder/parser used by the transport, the switch (SetCe) and tests.
 */

#ifndef ROCE_HEADER_H
#define ROCE_HEADER_H

#include "rdma-meta.h"

#include "ns3/header.h"
#include "ns3/mac48-address.h"
#include "ns3/packet.h"
#include "ns3/trailer.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup astra-sim
 * Ethernet/802.1Q/IPv4/UDP/BTH and extension headers of a RoCEv2 frame, as one Header.
 *
 * Fields that are not in RdmaMeta: the MAC addresses, the 802.1Q VLAN id (0) and the
 * IPv4 DSCP (set to priority << 3, i.e. class selector CSp; the PCP is authoritative).
 * Not serialized (model-only, travel in RdmaMeta): sendTimeNs and the INT stack.
 */
class RoceHeader : public Header
{
  public:
    static constexpr uint16_t kRoceUdpPort = 4791; //!< IANA RoCEv2 UDP port
    static constexpr uint32_t kEthBytes = 18;      //!< Ethernet II + 802.1Q tag
    static constexpr uint32_t kIpv4Bytes = 20;     //!< IPv4 without options
    static constexpr uint32_t kUdpBytes = 8;       //!< UDP header
    static constexpr uint32_t kBthBytes = 12;      //!< base transport header
    static constexpr uint32_t kIcrcBytes = 4;      //!< invariant CRC trailer
    static constexpr uint32_t kFcsBytes = 4;       //!< Ethernet FCS (not in the packet)

    /// \return the TypeId
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;

    RoceHeader();
    /**
     * Header for a frame described by meta.
     * \param meta frame description (kind must be ROCE)
     * \param src source MAC
     * \param dst destination MAC
     */
    RoceHeader(const RdmaMeta& meta, Mac48Address src, Mac48Address dst);

    /// \return bytes of extension headers (RETH/AETH/CNP reserved) after the BTH for opcode
    static uint32_t GetExtBytes(uint8_t opcode);
    /// \return bytes of this header for opcode (Ethernet through extension headers)
    static uint32_t GetHeaderBytes(uint8_t opcode);

    const RdmaMeta& GetMeta() const;     //!< \return the fields (after Deserialize: as read)
    RdmaMeta& GetMeta();                 //!< \return the fields, modifiable
    Mac48Address GetSource() const;      //!< \return source MAC
    Mac48Address GetDestination() const; //!< \return destination MAC
    /// \return true if the last Deserialize found a valid IPv4 header checksum
    bool IsIpv4ChecksumOk() const;
    /// \return true if the last Deserialize found 802.1Q + IPv4 + UDP (any port)
    bool IsValid() const;
    /// \return IPv4 header checksum as serialized (after Deserialize: as read)
    uint16_t GetIpv4Checksum() const;

    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

    /// \return the IPv4 header checksum for the header described by meta
    static uint16_t ComputeIpv4Checksum(const RdmaMeta& meta);

  private:
    RdmaMeta m_meta;          //!< fields
    Mac48Address m_src;       //!< source MAC
    Mac48Address m_dst;       //!< destination MAC
    uint16_t m_ipChecksum{0}; //!< checksum read by Deserialize
    bool m_checksumOk{true};  //!< checksum verified by Deserialize
    bool m_valid{true};       //!< structure verified by Deserialize
};

/**
 * \ingroup astra-sim
 * The 4-byte RoCEv2 invariant CRC at the end of the frame. The model writes a
 * constant (kDefaultIcrc); receivers do not check it (tshark does not either).
 */
class RoceIcrcTrailer : public Trailer
{
  public:
    static constexpr uint32_t kDefaultIcrc = 0x1CC1C0DE; //!< value written by the model

    /// \return the TypeId
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    RoceIcrcTrailer();
    explicit RoceIcrcTrailer(uint32_t icrc); //!< \param icrc value to write
    uint32_t GetIcrc() const;                //!< \return the ICRC value

    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator end) const override;
    uint32_t Deserialize(Buffer::Iterator end) override;

  private:
    uint32_t m_icrc; //!< value
};

/**
 * \ingroup astra-sim
 * Builder/parser of frames (RoCEv2 and PFC). The per-hop path never parses:
 * RdmaMeta travels beside the packet.
 */
class RoceFrame
{
  public:
    /**
     * Bytes of the Ethernet frame described by meta, including the 4-byte FCS
     * (excluding preamble/SFD/IFG). RoCE frames shorter than 64 B are padded.
     * \param meta frame description (kind, opcode, payload)
     * \return frame bytes
     */
    static uint32_t GetFrameBytes(const RdmaMeta& meta);

    /**
     * Build the frame described by meta and set meta.frameBytes.
     * MACs: derived from the IPs (see MacFromIp); PFC: source 02:00:00:00:00:00.
     * \param meta frame description; meta.frameBytes is filled in
     * \return the frame (payload is zero bytes, ICRC trailer at the end)
     */
    static Ptr<Packet> Build(RdmaMeta& meta);
    /// Same as Build(RdmaMeta&), for a const meta (frameBytes not filled in).
    /// \param meta frame description \return the frame
    static Ptr<Packet> Build(const RdmaMeta& meta);
    /**
     * Build with explicit MAC addresses (RoCE: src/dst; PFC: src, dst is 01:80:C2:00:00:01).
     * \param meta frame description; meta.frameBytes is filled in
     * \param src source MAC
     * \param dst destination MAC (ignored for PFC)
     * \return the frame
     */
    static Ptr<Packet> Build(RdmaMeta& meta, Mac48Address src, Mac48Address dst);

    /**
     * Build a PFC frame.
     * \param meta kind set to PFC, frameBytes to 64; pfcClassEnable and pfcQuanta are used
     * \param src source MAC (the sending port)
     * \return the frame (60 bytes)
     */
    static Ptr<Packet> BuildPfc(RdmaMeta& meta, Mac48Address src);

    /**
     * Mark CE in both the bytes and the meta (rare path: copies the packet, rewrites the
     * IPv4 header including its checksum).
     * \param packet the frame; replaced by a modified copy (null: lazily built frame,
     *        only meta changes)
     * \param meta its meta; ecn becomes 3
     */
    static void SetCe(Ptr<Packet>& packet, RdmaMeta& meta);

    /**
     * Rewrite the frame's headers from meta (rare path: TTL, ECN, PSN ... changed in meta).
     * Keeps the MAC addresses, payload and ICRC. The payload size must be unchanged.
     * \param packet the frame; replaced by a modified copy (null: lazily built frame,
     *        only meta.frameBytes is refreshed)
     * \param meta the fields to write (frameBytes is refreshed)
     */
    static void Sync(Ptr<Packet>& packet, RdmaMeta& meta);

    /**
     * Parse a frame's bytes (tests, pcap-level checks; not used per hop).
     * \param packet the frame
     * \param meta filled with the fields read (frameBytes includes the FCS)
     * \return false if the frame is neither a valid RoCEv2 frame (802.1Q/IPv4 with a
     *         valid checksum/UDP/BTH) nor a valid PFC frame
     */
    static bool Parse(Ptr<const Packet> packet, RdmaMeta& meta);

    /// \return 02:00:a:b:c:d for IPv4 address a.b.c.d (locally administered, unicast)
    /// \param ip IPv4 address (host order)
    static Mac48Address MacFromIp(uint32_t ip);
    /// \return 02:nn:nn:nn:pp:pp for node id n (24 bits) and port p (16 bits)
    /// \param nodeId node id \param port port index
    static Mac48Address MacFromNodePort(uint32_t nodeId, uint32_t port);
};

} // namespace ns3

#endif /* ROCE_HEADER_H */
