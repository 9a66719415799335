/*
 * Built-in LLM training workload generator: Chakra traces (one per NPU) and the
 * communicator-group JSON of a transformer trained with data, tensor (optionally
 * sequence), pipeline and expert parallelism and ZeRO / FSDP sharding.
 */

#ifndef ASTRA_LLM_WORKLOAD_H
#define ASTRA_LLM_WORKLOAD_H

#include "et-writer.h"
#include "workload-graph.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

/// Feed-forward block of a dense layer and of each expert.
enum class LlmFfnKind : uint8_t
{
    GELU,  //!< two matrices (up D x F, down F x D), GPT style
    SWIGLU //!< three matrices (gate and up D x F, down F x D), Llama / Mixtral style
};

/// Pipeline schedule of the micro-batches on every stage.
enum class LlmPipelineSchedule : uint8_t
{
    GPIPE,      //!< all forwards, then all backwards (in reverse micro-batch order)
    ONE_F_ONE_B //!< PipeDream-Flush: warm-up forwards, then one forward / one backward
};

/// When the data-parallel gradient reduction of the transformer layers runs.
enum class LlmGradSync : uint8_t
{
    ITERATION, //!< once, in the backward of the last micro-batch (gradient accumulation)
    MICROBATCH //!< in the backward of every micro-batch
};

/// Activation recomputation.
enum class LlmRecompute : uint8_t
{
    NONE, //!< activations kept
    FULL  //!< every layer's forward (compute and its TP / EP communication) re-run in backward
};

/**
 * \ingroup astra-sim
 * Shape of a decoder-only transformer.
 */
struct LlmModelShape
{
    std::string name{"custom"};       //!< preset name, or "custom"
    uint32_t layers{0};               //!< transformer layers L
    uint32_t hidden{0};               //!< hidden size D
    uint32_t ffnHidden{0};            //!< FFN hidden size F (dense layers)
    uint32_t heads{0};                //!< attention heads H (head dim = D / H)
    uint32_t kvHeads{0};              //!< key/value heads (GQA); = heads for multi-head attention
    uint32_t vocab{0};                //!< vocabulary size V
    uint32_t seqLength{0};            //!< sequence length S (tokens per sequence)
    LlmFfnKind ffn{LlmFfnKind::GELU}; //!< FFN kind
    bool tiedEmbeddings{false};       //!< output layer shares the input embedding's weights
    uint32_t experts{1};              //!< experts per MoE layer (1 = dense model)
    uint32_t topK{1};                 //!< experts per token
    uint32_t expertFfnHidden{0};      //!< FFN hidden size of one expert (0 = ffnHidden)
    uint32_t moeEvery{1};             //!< every moeEvery-th layer is MoE (layers k*moeEvery-1)

    /**
     * A well-known shape (numbers and sources in doc/workload-generator.rst):
     * gpt3-175b, llama3-8b, llama3-70b, llama3-405b, mixtral-8x7b.
     * \param name preset name
     * \return the shape
     * \throw InputError on an unknown name (with the closest preset)
     */
    static LlmModelShape Preset(const std::string& name);

    /// \return the preset names
    static std::vector<std::string> PresetNames();
};

/**
 * \ingroup astra-sim
 * Everything the generator needs. Field comments give the command-line option of
 * astra-sim-workload-gen that sets them; validation messages name those options.
 */
struct LlmWorkloadConfig
{
    LlmModelShape model; //!< the model (--preset, --layers, --hidden, ...)

    uint64_t globalBatch{0}; //!< --global-batch: sequences per iteration (all replicas)
    uint32_t microBatch{1};  //!< --micro-batch: sequences per micro-batch per DP replica

    uint32_t npus{0}; //!< --npus: world size (0 = dp x tp x pp); with dp = 0, dp is derived
    uint32_t dp{1};   //!< --dp: data-parallel degree (0 = npus / (tp x pp))
    uint32_t tp{1};   //!< --tp: tensor-parallel degree
    uint32_t pp{1};   //!< --pp: pipeline stages
    uint32_t ep{1};   //!< --ep: expert-parallel degree (carved out of DP; divides dp)
    bool sequenceParallel{false}; //!< --sp: Megatron sequence parallelism (needs tp > 1)
    bool vocabParallel{true};     //!< --vocab-parallel: embedding / output layer split over TP
    /// --rank-order: the parallel dimensions from innermost (consecutive ranks) to outermost
    std::string rankOrder{"tp,dp,pp"};
    LlmPipelineSchedule schedule{LlmPipelineSchedule::ONE_F_ONE_B}; //!< --schedule
    uint32_t zeroStage{0};                        //!< --zero: 0, 1, 2 or 3 (3 = FSDP)
    LlmGradSync gradSync{LlmGradSync::ITERATION}; //!< --grad-sync
    double bucketMiB{0};          //!< --bucket-mib: gradient bucket (0 = one per layer)
    bool overlapGradReduce{true}; //!< --overlap-grad-reduce: buckets start during backward
    LlmRecompute recompute{LlmRecompute::NONE}; //!< --recompute

    uint32_t bytesPerElement{2}; //!< --bytes-per-element: activations and parameters
    uint32_t gradBytes{0};       //!< --grad-bytes: gradient element size (0 = bytesPerElement)
    double capacityFactor{1.0};  //!< --capacity-factor: MoE tokens per expert / fair share

    double computeTflops{0}; //!< --compute-tflops: >0 writes COMP durations at this throughput
    double memoryGBps{0};    //!< --memory-gbps: with compute-tflops, durations = roofline max

    bool optimizerStep{true};            //!< --optimizer: an Adam step closes the iteration
    bool offloadOptimizer{false};        //!< --offload-optimizer: MEM_LOAD / MEM_STORE its state
    uint32_t optimizerBytesPerParam{12}; //!< --optimizer-bytes: fp32 master + 2 moments

    /**
     * The configuration of a preset: its shape, its sequence length and a global batch of
     * 1024 sequences, everything else default.
     * \param name preset name
     * \return the configuration
     */
    static LlmWorkloadConfig FromPreset(const std::string& name);
};

/**
 * \ingroup astra-sim
 * Per-rank memory estimate (bytes), see doc/workload-generator.rst.
 */
struct LlmMemoryEstimate
{
    uint64_t params{0};      //!< parameters held
    uint64_t grads{0};       //!< gradient buffer
    uint64_t optimizer{0};   //!< optimizer state (0 when offloaded)
    uint64_t activations{0}; //!< stored activations at the peak of the schedule

    /// \return the sum
    uint64_t Total() const
    {
        return params + grads + optimizer + activations;
    }
};

/**
 * \ingroup astra-sim
 * What LlmWorkloadGenerator::Write produced.
 */
struct LlmWriteResult
{
    uint32_t files{0};      //!< .et files written
    uint64_t nodes{0};      //!< nodes over all files
    uint64_t rawBytes{0};   //!< serialized size before compression
    uint64_t fileBytes{0};  //!< bytes on disk (compressed when gzip)
    std::string groupsPath; //!< the communicator-group JSON
    std::string firstFile;  //!< PREFIX.0.et (or .et.gz)
    double wallSeconds{0};  //!< time spent
};

/**
 * \ingroup astra-sim
 * Generates the per-NPU Chakra graphs of one training iteration of an LLM.
 *
 * Ranks: coordinates (dp, tp, pp) are laid out by LlmWorkloadConfig::rankOrder (first
 * name = innermost = consecutive ranks). Every group of two or more ranks that
 * carries a collective gets a communicator group (ids 1, 2, ... by kind: TP, DP, EP,
 * expert-DP, tied-embedding; within a kind by smallest member), written to the JSON
 * that --comm-group-configuration reads and named by pg_name in the traces.
 *
 * Per stage the graph is one compute stream (every COMP has a control dependency on
 * the previous COMP of its NPU) in the order of the pipeline schedule; communication
 * overlaps the stream where the frameworks overlap it (see the documentation).
 *
 * \code
 * LlmWorkloadConfig c = LlmWorkloadConfig::FromPreset("llama3-8b");
 * c.tp = 8; c.pp = 2; c.dp = 4; c.sequenceParallel = true;
 * LlmWorkloadGenerator gen(c);              // validates (InputError)
 * gen.Write("out/llama8b");                 // out/llama8b.<r>.et + out/llama8b.json
 * auto graphs = gen.BuildAll();             // or in memory, for AstraSimHelper::Run
 * auto groups = gen.GetCommGroups();
 * \endcode
 */
class LlmWorkloadGenerator
{
  public:
    /// Communicator-group kinds.
    enum GroupKind : uint8_t
    {
        GROUP_TP = 0,  //!< tensor-parallel peers
        GROUP_DP = 1,  //!< data-parallel peers (dense gradients, ZeRO)
        GROUP_EP = 2,  //!< expert-parallel peers (all-to-all)
        GROUP_EDP = 3, //!< ranks holding the same experts (expert gradients)
        GROUP_EMB = 4, //!< first and last stage (tied embedding gradients)
        GROUP_KINDS = 5
    };

    /// Coordinates of a rank.
    struct Coord
    {
        uint32_t dp{0}; //!< data-parallel index
        uint32_t tp{0}; //!< tensor-parallel index
        uint32_t pp{0}; //!< pipeline stage
    };

    /**
     * Validate the configuration and plan the workload.
     * \param config the configuration
     * \throw InputError naming the offending option(s) and value(s)
     */
    explicit LlmWorkloadGenerator(const LlmWorkloadConfig& config);
    ~LlmWorkloadGenerator();

    /// \return the configuration (dp resolved when it was derived from npus)
    const LlmWorkloadConfig& GetConfig() const;
    /// \return number of NPUs (dp x tp x pp)
    uint32_t GetNpuCount() const;
    /// \return micro-batches per iteration (global batch / (micro batch x dp))
    uint32_t GetMicroBatches() const;
    /// \return coordinates of a rank \param rank the rank
    Coord GetCoord(uint32_t rank) const;
    /// \return the rank of coordinates \param c the coordinates
    uint32_t GetRank(const Coord& c) const;

    /// \return parameters of the whole model (embedding and output layer once if tied)
    uint64_t GetModelParams() const;
    /// \return parameters held by one rank of a stage (its TP / EP shard, before ZeRO)
    /// \param stage the stage
    uint64_t GetStageParams(uint32_t stage) const;
    /// \return expert parameters among GetStageParams(stage) \param stage the stage
    uint64_t GetStageExpertParams(uint32_t stage) const;
    /// \return memory estimate of a rank of a stage \param stage the stage
    LlmMemoryEstimate GetMemoryEstimate(uint32_t stage) const;

    /// \return the communicator groups, pg_name (decimal id) -> member ranks (ascending)
    const std::map<std::string, std::vector<uint32_t>>& GetCommGroups() const;
    /// \return pg_name of a rank's group of a kind ("" when the kind has no group)
    /// \param rank the rank \param kind the kind
    const std::string& GetGroupName(uint32_t rank, GroupKind kind) const;

    /**
     * Build the graph of one rank.
     * \param rank the rank
     * \return the graph (index built)
     */
    WorkloadGraph BuildRank(uint32_t rank) const;

    /// \return the graphs of every rank, index = rank (for AstraSimHelper::Run)
    std::vector<std::shared_ptr<const WorkloadGraph>> BuildAll() const;

    /**
     * Write PREFIX.<r>.et for every rank (PREFIX.<r>.et.gz when opts.gzip) and the
     * communicator-group JSON. Ranks of one stage share a template; files are encoded
     * by `threads` workers (0 = hardware concurrency), byte-identical for any count.
     * \param prefix output prefix (its directory must exist)
     * \param groupsPath JSON path ("" = PREFIX.json)
     * \param opts writer options (gzip, gzipLevel, legacy)
     * \param threads worker threads
     * \return counts and sizes
     * \throw WorkloadError when a file cannot be written
     */
    LlmWriteResult Write(const std::string& prefix,
                         const std::string& groupsPath = "",
                         const ChakraWriteOptions& opts = ChakraWriteOptions(),
                         uint32_t threads = 0) const;

    /// \return the communicator-group JSON text ({"1": [0, 2], ...})
    std::string GetCommGroupsJson() const;

    /// \return a human-readable summary (shape, parallelism, parameters, FLOPs, memory)
    std::string Describe() const;

    /// \return total FLOPs of one iteration over all ranks (every COMP's num_ops summed)
    double GetIterationFlops() const;

    /// Implementation (plan, groups, stage templates); opaque.
    struct Impl;

  private:
    std::unique_ptr<Impl> m_impl; //!< plan and stage templates
};

/**
 * \ingroup astra-sim
 * Parse a pipeline schedule name ("1f1b", "gpipe").
 * \param s the name \param option option name for messages
 * \return the schedule
 * \throw InputError with the accepted names
 */
LlmPipelineSchedule ParseLlmSchedule(const std::string& s,
                                     const std::string& option = "--schedule");

/**
 * \ingroup astra-sim
 * The command line of astra-sim-workload-gen (examples/astra-sim-workload-gen.cc):
 * parses the options, generates, writes and prints a summary. Run it through RunMain
 * so that an InputError becomes exit status 1.
 * \param argc argument count
 * \param argv arguments
 * \return exit status (0 ok)
 * \throw InputError on a bad option value or shape
 */
int LlmWorkloadGenMain(int argc, char** argv);

} // namespace astra
} // namespace ns3

#endif /* ASTRA_LLM_WORKLOAD_H */
