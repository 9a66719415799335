/*
 * RdmaNetDevice: a full-duplex Ethernet port for RoCEv2 fabrics, used both as
 * a host NIC port and as a switch port. Eight priority queues, strict priority
 * for control classes and DWRR/round-robin for data classes, 802.1Qbb PFC
 * reaction (pause quanta, expiry, resume on 0), serialization that counts
 * preamble, IFG and FCS. Frames travel with their parsed headers (RdmaMeta)
 * so the per-hop path never re-parses. At most two events per hop while the
 * link is busy: transmit-complete at the sender and receive at the peer.
 *
 * Ownership: the node-level owner (RdmaSwitch on switches, RdmaHostStack on
 * hosts) installs an RxHandler, and on hosts a FrameSource that the device
 * polls for data frames whenever it could transmit.
 */

#ifndef RDMA_NET_DEVICE_H
#define RDMA_NET_DEVICE_H

#include "rdma-meta.h"

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"

#include <array>
#include <vector>

namespace ns3
{

class RdmaChannel;
class Node;
class ErrorModel;

/**
 * \ingroup astra-sim
 * A frame sitting in a device queue.
 */
struct RdmaQueuedFrame
{
    Ptr<Packet> packet; //!< the frame's bytes (headers + payload + ICRC)
    RdmaMeta meta;      //!< parsed headers
    uint32_t inPort{0}; //!< ingress port index on a switch (for MMU release)
};

/**
 * \ingroup astra-sim
 * Supplies data frames to a host NIC port (implemented by the transport).
 */
class RdmaFrameSource
{
  public:
    virtual ~RdmaFrameSource() = default;
    /**
     * Called when the port can start a transmission.
     * \param pausedMask bit p set = priority p is paused by PFC
     * \param frame filled with the frame to send
     * \param nextTry if no frame is returned: when one may be ready (Time::Max() = unknown)
     * \return true if a frame was returned
     */
    virtual bool DequeueFrame(uint8_t pausedMask, RdmaQueuedFrame& frame, Time& nextTry) = 0;
};

/**
 * \ingroup astra-sim
 * RoCEv2 / 802.1Qbb Ethernet port.
 */
class RdmaNetDevice : public NetDevice
{
  public:
    static TypeId GetTypeId(); //!< \return the TypeId
    RdmaNetDevice();
    ~RdmaNetDevice() override;

    /// Handler for received frames (after PFC frames were consumed by the device).
    using RxHandler = Callback<void, Ptr<RdmaNetDevice>, RdmaQueuedFrame&>;
    /// Handler told when a frame from a queue finished serialization.
    using TxHandler = Callback<void, Ptr<RdmaNetDevice>, const RdmaQueuedFrame&>;

    bool Attach(Ptr<RdmaChannel> ch); //!< attach to a channel \return success
    void SetRxHandler(RxHandler h);   //!< set the receive handler
    void SetTxHandler(TxHandler h);   //!< set the transmit-complete handler
    void SetFrameSource(RdmaFrameSource* src); //!< host NICs: data frame source
    /// Tell the device the frame source may have a frame now (wakes an idle port).
    void NotifySourceReady();

    /// Enqueue a frame on its priority's egress queue (meta.priority).
    void EnqueueFrame(RdmaQueuedFrame&& frame);
    /// Send a PFC frame for one priority (quanta 0 = resume); bypasses the data queues.
    void SendPfc(uint8_t priority, uint16_t quanta);

    bool IsPaused(uint8_t priority) const;         //!< \return PFC pause state
    uint8_t GetPausedMask() const;                 //!< \return bit mask of paused priorities
    uint32_t GetQueueBytes(uint8_t priority) const; //!< \return bytes queued
    uint32_t GetQueueFrames(uint8_t priority) const; //!< \return frames queued
    uint64_t GetTxBytes() const;                   //!< \return frame bytes sent so far
    DataRate GetDataRate() const;                  //!< \return link rate
    Time GetTxTime(uint32_t frameBytes) const;     //!< \return serialization time incl. wire overhead
    Ptr<RdmaChannel> GetRdmaChannel() const;       //!< \return the channel
    uint32_t GetPortIndex() const;                 //!< \return index on the node (set by the owner)
    void SetPortIndex(uint32_t i);                 //!< set port index

    /// Called by RdmaChannel when a frame's last bit arrived.
    void Receive(RdmaQueuedFrame& frame);

    // NetDevice API (RoCE traffic does not use Send(); it exists for ns-3 compatibility)
    void SetIfIndex(const uint32_t index) override;
    uint32_t GetIfIndex() const override;
    Ptr<Channel> GetChannel() const override;
    void SetAddress(Address address) override;
    Address GetAddress() const override;
    bool SetMtu(const uint16_t mtu) override;
    uint16_t GetMtu() const override;
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override;
    bool IsBroadcast() const override;
    Address GetBroadcast() const override;
    bool IsMulticast() const override;
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;
    bool IsPointToPoint() const override;
    bool IsBridge() const override;
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    Ptr<Node> GetNode() const override;
    void SetNode(Ptr<Node> node) override;
    bool NeedsArp() const override;
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    void SetPromiscReceiveCallback(PromiscReceiveCallback cb) override;
    bool SupportsSendFrom() const override;

    // (private members are the implementer's choice)
};

} // namespace ns3

#endif /* RDMA_NET_DEVICE_H */
