/*
 * MemoryServer: the RDMA service of a disaggregated memory node on the RoCE
 * fabric. It answers the READs and WRITEs that NPUs post to the node's
 * RdmaHostStack through its MemoryDevice.
 */

#ifndef ASTRA_MEMORY_SERVER_H
#define ASTRA_MEMORY_SERVER_H

#include "memory-device.h"

#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/rdma-queue-pair.h"

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

namespace ns3
{

class RdmaHostStack;

namespace astra
{

/**
 * \ingroup astra-sim
 * The server of one memory node: the consumer (RdmaQpConsumer) and the
 * responder (RdmaQpResponder) of the server ends of the QPs that NPUs open
 * to the node (Serve).
 *
 * - RDMA READ: the response data leaves when the device has it
 *   (MemoryDevice::Read: channel, latency, data path), paced at the device's
 *   bandwidth, so at the lower of link and memory bandwidth;
 * - RDMA WRITE: the device takes the data as it arrives
 *   (MemoryDevice::WriteStart at the first packet); when the data is written
 *   (MemoryDevice::WriteDone after the last byte) the server posts a
 *   zero-length SEND carrying the WRITE's tag back on the same connection:
 *   the write completion the NPU waits for (as a commit / flush response).
 *   The transport's ACKs are not delayed, so congestion control sees network
 *   round trips only.
 *
 * The node's host stack is otherwise untouched: QPs without a responder
 * (other traffic) respond at once.
 */
class MemoryServer : public Object, public RdmaQpConsumer, public RdmaQpResponder
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    MemoryServer();
    ~MemoryServer() override;

    /**
     * \param stack the memory node's host stack
     * \param device its memory
     */
    void Setup(Ptr<RdmaHostStack> stack, Ptr<MemoryDevice> device);
    /**
     * Serve a QP end of this node (its consumer and responder are set to this server).
     * \param qp the server-side QP end
     */
    void Serve(Ptr<RdmaQueuePair> qp);

    Ptr<MemoryDevice> GetDevice() const;     //!< \return the device
    Ptr<RdmaHostStack> GetHostStack() const; //!< \return the host stack
    uint64_t GetWriteCompletions() const;    //!< \return write completions sent

    RdmaReadGate ReadRequested(RdmaQueuePair& qp, uint64_t bytes) override;
    void WriteStarted(RdmaQueuePair& qp, uint64_t bytes) override;
    void RxComplete(RdmaQueuePair& qp, const RdmaMessageInfo& info) override;

  protected:
    void DoDispose() override;

  private:
    /// Post the completion of the WRITE \p tag on QP \p qpn.
    void Complete(uint32_t qpn, uint64_t tag);

    Ptr<RdmaHostStack> m_stack;
    Ptr<MemoryDevice> m_device;
    std::vector<Ptr<RdmaQueuePair>> m_qps; //!< served QP ends
    /// per served QP (qpn): device slots of WRITEs in progress, in PSN order
    std::unordered_map<uint32_t, std::deque<MemoryDevice::Grant>> m_writes;
    uint64_t m_completions{0};
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_MEMORY_SERVER_H */
