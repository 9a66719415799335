/*
 * The limits every input is checked against (doc/configuration.rst, "Limits").
 * A value beyond one of them is an input error naming the limit, instead of an
 * overflow into a nonsense time, a run that cannot finish or an allocation
 * that exhausts the machine.
 */

#ifndef ASTRA_LIMITS_H
#define ASTRA_LIMITS_H

#include <cstdint>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * Input limits.
 */
namespace limits
{

/// Largest time value of an input: a delay, a latency, one node's duration (ns, 1000 s).
constexpr double kMaxTimeNs = 1e12;
/// Smallest link or memory bandwidth (GB/s; 1 MB/s): below, one message outlasts any run.
constexpr double kMinBandwidthGBps = 1e-3;
/// Largest link or memory bandwidth (GB/s; 1 PB/s).
constexpr double kMaxBandwidthGBps = 1e6;
/// Largest roofline peak (TFLOPS).
constexpr double kMaxPeakPerfTflops = 1e6;
/// Largest size of one collective, SEND, RECV or memory access, after scaling (1 TiB).
constexpr uint64_t kMaxMessageBytes = uint64_t(1) << 40;
/// Largest NPU count of a topology (the product of the dimension sizes).
constexpr uint64_t kMaxNpus = uint64_t(1) << 20;
/// Largest number of links (or of switches) a topology may build.
constexpr uint64_t kMaxLinks = uint64_t(1) << 24;
/// Largest configuration file (JSON, YAML, text) read.
constexpr uint64_t kMaxConfigFileBytes = uint64_t(64) << 20;
/// Default largest Chakra trace file, compressed and after decompression (2 GiB).
constexpr uint64_t kMaxTraceFileBytes = uint64_t(2) << 30;
/// Largest preferred-dataset-splits (chunks of one collective: the system layer's tag field).
constexpr uint32_t kMaxSplits = 1024;
/// Largest active-chunks-per-dimension.
constexpr uint32_t kMaxActiveChunks = 1000000;
/// Largest num-queues-per-dim (more queues than chunks of a collective serve nothing).
constexpr uint32_t kMaxQueuesPerDim = 1024;
/// Largest number of training passes unrolled from a text workload.
constexpr uint32_t kMaxTextPasses = 1000;

} // namespace limits
} // namespace astra
} // namespace ns3

#endif /* ASTRA_LIMITS_H */
