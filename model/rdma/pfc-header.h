/*
 * PfcHeader: an IEEE 802.1Qbb priority-based flow control frame (a MAC control
 * frame) serialized as real bytes: destination 01:80:C2:00:00:01, source MAC,
 * EtherType 0x8808, opcode 0x0101, 16-bit class-enable vector, eight 16-bit
 * pause times (quanta of 512 bit times), zero padding up to the 60-byte
 * minimum frame (64 B on the wire with the FCS, which is not in the bytes).
 */

#ifndef PFC_HEADER_H
#define PFC_HEADER_H

#include "ns3/header.h"
#include "ns3/mac48-address.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup astra-sim
 * 802.1Qbb PFC MAC control frame (the whole frame, without FCS).
 */
class PfcHeader : public Header
{
  public:
    static constexpr uint16_t kEtherType = 0x8808; //!< MAC control EtherType
    static constexpr uint16_t kOpcode = 0x0101;    //!< PFC opcode
    static constexpr uint32_t kFrameBytes = 60;    //!< frame bytes without FCS (padded)

    /// \return the TypeId
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;

    PfcHeader();

    /// \return the PFC multicast destination 01:80:C2:00:00:01
    static Mac48Address GetPfcDestination();

    void SetSource(Mac48Address src); //!< set the source MAC
    Mac48Address GetSource() const;   //!< \return the source MAC
    /// \return the destination MAC read by Deserialize (01:80:C2:00:00:01 when built)
    Mac48Address GetDestination() const;
    void SetClassEnable(uint16_t v); //!< set the class-enable vector (bit p = priority p)
    uint16_t GetClassEnable() const; //!< \return the class-enable vector
    /// Set the pause time of a priority (quanta of 512 bit times; 0 = resume).
    void SetQuanta(uint8_t priority, uint16_t quanta);
    uint16_t GetQuanta(uint8_t priority) const; //!< \return pause quanta of a priority
    /// \return true if the last Deserialize saw EtherType 0x8808 and opcode 0x0101
    bool IsValid() const;

    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

  private:
    Mac48Address m_src;        //!< source MAC
    Mac48Address m_dst;        //!< destination MAC
    uint16_t m_classEnable{0}; //!< class-enable vector
    uint16_t m_quanta[8]{};    //!< pause times
    bool m_valid{true};        //!< EtherType/opcode matched on Deserialize
};

} // namespace ns3

#endif /* PFC_HEADER_H */
