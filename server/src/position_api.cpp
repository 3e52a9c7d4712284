// GET /api/v1/position, the search behind it and the lookup of a variant text (the batch in
// batch_api.cpp).
#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

#include "api_impl.h"
#include "sowdb/analysis/position_answer.h"
#include "sowdb/analysis/report_json.h"
#include "sowdb/probe/outcome.h"
#include "sowdb/probe/variant.h"
#include "sowdb/server/status.h"

namespace sowdb::server {
namespace {

// A search's decoded value blocks per layer (128 MiB of values at most) and its transposition
// table: searches are short (ApiOptions::max_search_ms) and one at a time by default.
constexpr std::size_t kSearchCacheBytes = std::size_t{128} << 20;
constexpr std::size_t kSearchDepthCacheBytes = std::size_t{64} << 10;
constexpr int kSearchHashMib = 32;

std::string served_list(const std::vector<Served>& served) {
  std::string out;
  for (const Served& s : served) {
    if (!out.empty())
      out += ", ";
    out += s.variant;
    out += s.objective == Objective::kCooperative ? " (cooperative)" : "";
  }
  return out;
}

std::string cache_key(const Served& s,
                      const std::vector<int>& board,
                      const std::vector<int>& stores) {
  std::string key = s.variant;
  key += s.objective == Objective::kCooperative ? "|c|" : "|p|";
  for (const int v : board) {
    key += std::to_string(v);
    key += ',';
  }
  key += '|';
  key += std::to_string(stores[0]);
  key += ',';
  key += std::to_string(stores[1]);
  return key;
}

// The legal moves of `board` as a job's progress lists them, in pit order: {after, captured,
// extra_turn, gain, pit, stored} each, the keys of a searched answer's moves that need no search.
// "[]" for a board check_board refuses (the job's search then refuses it too).
std::string legal_moves_json(const Rules& rules, const std::vector<long long>& board) {
  nlohmann::json moves = nlohmann::json::array();
  const Answer<Pits> pits = check_board(rules, board);
  if (!pits)
    return moves.dump();
  MoveList legal;
  rules.legal_moves(*pits, legal);
  for (const Move& m : legal) {
    moves.push_back({{"after", pits_vector(rules, m.child)},
                     {"captured", static_cast<int>(m.captured)},
                     {"extra_turn", m.extra_turn},
                     {"gain", m.gain()},
                     {"pit", static_cast<int>(m.pit)},
                     {"stored", static_cast<int>(m.stored)}});
  }
  return moves.dump();
}

}  // namespace

Answered refused(const Refusal& r) {
  Answered a;
  a.status = http_status(r.kind);
  a.error = r.message_without_paths();
  return a;
}

Response refusal_response(const Refusal& r, Endpoint endpoint) {
  Response out = Api::error(http_status(r.kind), r.message_without_paths());
  out.endpoint = endpoint;
  return out;
}

bool parse_max_plies(std::string_view text, int cap, int& out, std::string& error) {
  std::vector<int> n;
  if (!parse_counts(text, 1, 1000000000, n, error) || n.size() != 1) {
    error = "max_plies: want a whole number of plies (0: no principal line), at most " +
            std::to_string(cap) + " are played";
    return false;
  }
  out = std::min(n[0], cap);
  return true;
}

const Served* Api::Impl::find(std::string_view variant,
                              std::string_view objective,
                              Refusal& refusal) const {
  if (!objective.empty() && !parse_objective(objective)) {
    refusal = {RefusalKind::kBadRequest,
               "objective must be competitive or cooperative, not '" + printable(objective) + "'"};
    return nullptr;
  }
  // The canonical text, as a page or a script sends it, needs no parsing.
  for (const Served& s : served) {
    if (s.variant == variant && (objective.empty() || objective == to_string(s.objective)))
      return find_canonical(s.variant, objective);
  }
  std::string reason;
  const std::optional<Variant> v = parse_variant(variant, &reason);
  if (!v) {
    // An unknown preset's reason already says "unknown variant '<preset>' (known: ...)": keep
    // its list, not the phrase twice. Other reasons (a bad board size) need the text named.
    const std::size_t known = reason.rfind(" (known: ");
    refusal = {RefusalKind::kUnknownVariant,
               "unknown variant '" + printable(variant) + "'" +
                   (reason.rfind("unknown variant '", 0) == 0 && known != std::string::npos
                        ? reason.substr(known)
                        : ": " + reason) +
                   "; served: " + served_list(served)};
    return nullptr;
  }
  const Served* found = find_canonical(v->to_string(), objective);
  if (found == nullptr) {
    refusal = {RefusalKind::kNotServed,
               "variant " + v->to_string() +
                   (objective.empty() ? std::string() : " (" + std::string(objective) + ")") +
                   " is not served; served: " + served_list(served)};
  }
  return found;
}

const Served* Api::Impl::find_canonical(std::string_view canonical,
                                        std::string_view objective) const {
  const Served* competitive = nullptr;
  const Served* cooperative = nullptr;
  for (const Served& s : served) {
    if (s.variant == canonical)
      (s.objective == Objective::kCooperative ? cooperative : competitive) = &s;
  }
  const std::optional<Objective> asked = parse_objective(objective);
  const Served* found = asked == Objective::kCooperative   ? cooperative
                        : asked == Objective::kCompetitive ? competitive
                        : competitive != nullptr           ? competitive
                                                           : cooperative;
  return found;
}

Answer<PositionAnswer> Api::Impl::search(const Served& s,
                                         const PositionQuery& query,
                                         int search_ms,
                                         bool worths) const {
  // A slot first: a search holds its worker thread for up to search_ms.
  if (searching.fetch_add(1) >= std::max(1, options.search_slots)) {
    --searching;
    return Refusal{RefusalKind::kBusy,
                   "every search slot is busy (" + std::to_string(options.search_slots) +
                       " at once); ask again, or without search_ms"};
  }
  struct Release {
    std::atomic<int>& n;
    ~Release() { --n; }
  } release{searching};
  PositionQuery q = query;
  const TableSet& tables = search_tables(s);
  q.search = search_budget(s, worths);
  q.search->seconds = search_ms / 1000.0;
  return answer_position(tables, q);
}

const TableSet& Api::Impl::search_tables(const Served& s) const {
  std::call_once(s.search->once, [&] {
    TableSetOptions o;
    // Up to 128 MiB of decoded values per layer, few depths: a search probes values only, the
    // same blocks again and again (one table set opened with the lookups' cache searched 60 K
    // positions a second, most of it decoding).
    o.cache_bytes = kSearchCacheBytes;
    o.depth_cache_bytes = kSearchDepthCacheBytes;
    try {
      s.search->set = TableSet::open(s.set->directory(), o);
    } catch (const std::exception&) {
      s.search->set.reset();
    }
    const std::shared_ptr<const TableSet> set = s.search->set ? s.search->set : s.set;
    // Read whole, a search runs about eight times the positions a second it reaches through the
    // block caches (issue 41's figures); the reading takes seconds, so it goes on beside the
    // searches, and the server's bound shares the memory between the sets in the order they are
    // first searched.
    const std::uint64_t need = gen::preload_bytes(*set);
    bool reserved = false;
    if (gen::preload_reads(*set)) {
      std::uint64_t used = search_memory_used.load();
      while (used + need <= options.search_memory_bytes &&
             !search_memory_used.compare_exchange_weak(used, used + need)) {
      }
      reserved = used + need <= options.search_memory_bytes;
    }
    if (reserved) {
      try {
        s.search->values = gen::PreloadedValues::read_beside(set);
      } catch (const std::exception&) {
        // No memory or no thread: the searches probe the tables, as with a bound of 0.
        search_memory_used -= need;
      }
    }
    s.search->opened.store(true, std::memory_order_release);
  });
  return s.search->set ? *s.search->set : *s.set;
}

SearchBudget Api::Impl::search_budget(const Served& s, bool worths) {
  SearchBudget b;
  b.worths = worths;
  b.threads = 1;
  b.hash_mib = kSearchHashMib;
  b.preload_limit = 0;
  b.preloaded = s.search->values;
  b.proofs = s.proofs.get();
  return b;
}

Answered Api::Impl::report_body(const PositionReport& r) {
  Answered a;
  // "api" sorts before every key of the report, as nlohmann would place it.
  const std::string report = to_json_text(r);
  a.body = std::make_shared<const std::string>("{\"api\":" + std::to_string(kApiVersion) + "," +
                                               report.substr(1));
  a.bounds = r.method == AnswerMethod::kSearch && !(r.search && r.search->complete);
  return a;
}

Answered Api::Impl::follow(const Served& s,
                           const PositionQuery& query,
                           const std::string& key,
                           int search_ms,
                           bool worths) const {
  int stones = 0;
  for (const long long n : query.board)
    stones += static_cast<int>(n);
  Answer<std::shared_ptr<Job>> joined = jobs->start(
      key,
      stones,
      [this, &s, query, key, worths](const SearchBudget& budget) {
        PositionQuery q = query;
        const TableSet& tables = search_tables(s);
        q.search = search_budget(s, worths);
        q.search->seconds = budget.seconds;
        q.search->stop = budget.stop;
        q.search->progress = budget.progress;
        const Answer<PositionAnswer> answer = answer_position(tables, q);
        JobResult result;
        if (!answer) {
          result.status = http_status(answer.refusal().kind);
          result.error = answer.refusal().message_without_paths();
          if (result.status == http_status(HttpRefusal::kInternal))
            note_failure(s);
          return result;
        }
        const Answered a = report_body(*answer->competitive);
        result.body = a.body;
        result.bounds = a.bounds;
        if (!a.bounds)
          cache.put(key, a.body);
        return result;
      },
      legal_moves_json(s.set->engine(), query.board));
  if (!joined)
    return refused(joined.refusal());
  Job& job = **joined;
  Answered a;
  if (SearchJobs::wait(job, search_ms)) {
    const std::lock_guard lock(job.mutex);
    if (!job.result.body) {
      a.status = job.result.status;
      a.error = job.result.error;
      return a;
    }
    a.body = job.result.body;
    a.bounds = job.result.bounds;
    return a;
  }
  a.status = http_status(HttpSuccess::kAccepted);
  a.body = std::make_shared<const std::string>(SearchJobs::progress_json(job, JobState::kRunning));
  a.bounds = true;
  return a;
}

Response Api::Impl::job(const Target& target, bool remove) const {
  auto respond = [](int status, std::string body) {
    Response r;
    r.status = status;
    r.endpoint = Endpoint::kJob;
    r.body = std::move(body);
    r.cache_control = "no-store";
    return r;
  };
  for (std::size_t i = 0; i < target.params.size(); ++i) {
    if (target.params[i].first != "id" || i > 0) {
      Response r = refusal_response(
          Refusal{RefusalKind::kBadRequest, "a job is asked for by its id alone: ?id=ID"},
          Endpoint::kJob);
      return r;
    }
  }
  const std::string* id = find_param(target, "id");
  if (id == nullptr) {
    return refusal_response(Refusal{RefusalKind::kBadRequest, "missing parameter 'id'"},
                            Endpoint::kJob);
  }
  const std::shared_ptr<Job> job = jobs->find(*id);
  if (!job) {
    Response r = Api::error(http_status(HttpRefusal::kNoSuchResource),
                            "no such job: " + printable(*id, 40) + " (jobs are forgotten " +
                                std::to_string(static_cast<int>(options.job_keep_seconds)) +
                                " s after they end)");
    r.endpoint = Endpoint::kJob;
    return r;
  }
  if (remove) {
    jobs->cancel(*id);
    SearchJobs::wait(*job, 1000);
    return respond(http_status(HttpSuccess::kOk), SearchJobs::progress_json(*job));
  }
  JobState state;
  JobResult result;
  {
    const std::lock_guard lock(job->mutex);
    state = job->state;
    result = job->result;
  }
  if (state == JobState::kRunning)
    return respond(http_status(HttpSuccess::kAccepted), SearchJobs::progress_json(*job, state));
  if (!result.body)
    return respond(result.status,
                   nlohmann::json{{"status", result.status}, {"error", result.error}}.dump(
                       -1, ' ', false, nlohmann::json::error_handler_t::replace));
  Response r = respond(http_status(HttpSuccess::kOk), std::string());
  r.shared_body = result.body;
  return r;
}

Answered Api::Impl::report(const Served& s,
                           const std::vector<int>& board,
                           const std::vector<int>& stores,
                           bool may_probe,
                           const ReportOptions& how) const {
  const int search_ms = how.search_ms;
  const bool worths = how.worths;
  const int max_plies = how.max_plies < 0 ? options.max_plies : how.max_plies;
  Answered a;
  if (stores.size() != 2) {
    return refused({RefusalKind::kBadRequest,
                    "stores: expected 2 numbers (the mover's store, then the opponent's), got " +
                        std::to_string(stores.size())});
  }
  // An exact answer of a search is kept under a key of its own: without search_ms the same
  // position is still refused.
  // A search of the value and best move alone is another answer again.
  // A shorter line is another answer: kept under a key of its own.
  const std::string key = cache_key(s, board, stores) +
                          (search_ms > 0 ? (worths ? "|s" : "|sv") : "") +
                          (max_plies != options.max_plies ? "|m" + std::to_string(max_plies) : "");
  if ((a.body = cache.get(key, may_probe)))
    return a;
  if (!may_probe) {
    a.needs_probe = true;
    return a;
  }
  PositionQuery query;
  query.board.assign(board.begin(), board.end());
  query.store_mover = stores[0];
  query.store_opponent = stores[1];
  query.max_plies = max_plies;
  Answer<PositionAnswer> answer = answer_position(*s.set, query);
  if (!answer && search_ms > 0 && answer.refusal().kind == RefusalKind::kTooManySeeds &&
      s.objective == Objective::kCompetitive) {
    if (how.follow)
      return this->follow(s, query, key, search_ms, worths);
    answer = search(s, query, search_ms, worths);
  }
  if (!answer) {
    Refusal r = answer.refusal();
    if (is_server_fault(http_status(r.kind)) && r.kind != RefusalKind::kBusy &&
        r.kind != RefusalKind::kInterrupted)
      note_failure(s);
    if (r.kind == RefusalKind::kBadPosition)
      r.message = "board: " + r.message;
    return refused(r);
  }
  if (answer->cooperative) {
    nlohmann::json j = to_json(*answer->cooperative);
    j["api"] = kApiVersion;
    a.body = std::make_shared<const std::string>(
        j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  } else {
    a = report_body(*answer->competitive);
  }
  if (!a.bounds)
    cache.put(key, a.body);
  return a;
}

std::optional<Response> Api::Impl::position(const Target& target, bool may_probe) const {
  auto fail = [](RefusalKind kind, const std::string& message) {
    return refusal_response(Refusal{kind, message}, Endpoint::kPosition);
  };
  for (std::size_t i = 0; i < target.params.size(); ++i) {
    const std::string& name = target.params[i].first;
    if (name != "variant" && name != "board" && name != "stores" && name != "objective" &&
        name != "search_ms" && name != "follow" && name != "worths" && name != "max_plies" &&
        name != "fields") {
      return fail(RefusalKind::kBadRequest,
                  "unknown parameter '" + printable(name) +
                      "' (parameters: variant, board, stores, objective, search_ms, follow, "
                      "worths, max_plies, fields)");
    }
    for (std::size_t k = 0; k < i; ++k) {
      if (target.params[k].first == name)
        return fail(RefusalKind::kBadRequest, "parameter '" + name + "' given twice");
    }
  }
  const std::string* variant = find_param(target, "variant");
  const std::string* board_text = find_param(target, "board");
  const std::string* stores_text = find_param(target, "stores");
  const std::string* objective = find_param(target, "objective");
  if (variant == nullptr)
    return fail(RefusalKind::kBadRequest, "missing parameter 'variant' (e.g. variant=oware/6x4)");
  if (board_text == nullptr)
    return fail(RefusalKind::kBadRequest,
                "missing parameter 'board' (pit counts, mover first, e.g. board=4,4,...)");
  Refusal refusal;
  const Served* s = find(*variant, objective != nullptr ? *objective : "", refusal);
  if (s == nullptr)
    return refusal_response(refusal, Endpoint::kPosition);
  std::vector<int> board;
  std::string error;
  if (!parse_counts(*board_text, kMaxBoardItems, kMaxBoardStones, board, error))
    return fail(RefusalKind::kBadPosition, "board: " + error);
  std::vector<int> stores;
  if (!parse_counts(
          stores_text != nullptr ? *stores_text : "0,0", 2, kMaxStoreValue, stores, error)) {
    return fail(RefusalKind::kBadRequest,
                "stores: " + error + " (want A,B: the mover's store, then the opponent's)");
  }
  ReportOptions how;
  if (const std::string* m = find_param(target, "max_plies")) {
    if (!parse_max_plies(*m, options.max_plies, how.max_plies, error))
      return fail(RefusalKind::kBadRequest, error);
  }
  FieldMask fields = 0;
  if (const std::string* f = find_param(target, "fields")) {
    if (!parse_fields(*f, fields, error))
      return fail(RefusalKind::kBadRequest, "fields: " + error);
  }
  int search_ms = 0;
  if (const std::string* ms = find_param(target, "search_ms")) {
    std::vector<int> n;
    if (!parse_counts(*ms, 1, 1000000000, n, error) || n.size() != 1) {
      return fail(RefusalKind::kBadRequest,
                  "search_ms: want a whole number of milliseconds, at most " +
                      std::to_string(options.max_search_ms) + " are searched");
    }
    search_ms = std::min(n[0], options.max_search_ms);
  }
  bool follow = false;
  if (const std::string* f = find_param(target, "follow")) {
    if (*f != "0" && *f != "1")
      return fail(RefusalKind::kBadRequest, "follow: want 1 (search on as a job) or 0");
    follow = *f == "1";
  }
  bool worths = true;
  if (const std::string* w = find_param(target, "worths")) {
    if (*w != "0" && *w != "1")
      return fail(RefusalKind::kBadRequest,
                  "worths: want 1 (every move's worth, the default) or 0 (a search of the value "
                  "and a best move only)");
    worths = *w == "1";
  }
  how.search_ms = search_ms;
  how.follow = follow;
  how.worths = worths;
  Answered a = report(*s, board, stores, may_probe, how);
  if (a.needs_probe)
    return std::nullopt;
  if (!a.body) {
    Response r = Api::error(a.status, a.error);
    r.endpoint = Endpoint::kPosition;
    return r;
  }
  Response r;
  r.status = a.status;
  r.endpoint = Endpoint::kPosition;
  // A job's progress (202) is not a report: it keeps its keys.
  if (fields != 0 && a.status == http_status(HttpSuccess::kOk))
    r.body = keep_fields(*a.body, fields);
  else
    r.shared_body = a.body;  // no copy of a cached answer per request
  // The tables do not change while served: a position's answer may be kept for a day; bounds
  // from a search that ran out of time are not an answer to keep.
  r.cache_control = a.bounds ? "no-store" : "public, max-age=86400";
  return r;
}

}  // namespace sowdb::server
