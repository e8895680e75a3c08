// The Detector's byte-level anchors (signal_detector.h, phase A): URLs, e-mail addresses, bare
// domains, IPv4 / IPv6 addresses, UUIDs, versions and identifiers, which claim their lexemes before
// any other detector runs; and phase B, the temporal expressions of text/temporal.h as date and
// time signals.
#include "text/signal_detector.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_set>
#include <utility>
#include <vector>

namespace engram::text::signals_detail {
namespace {

bool IsHexByte(char c) {
  return IsDigitByte(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

std::string ToLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

constexpr std::array<std::string_view, 46> kProducts = {
    "python", "java",   "node",   "nodejs",     "ios",      "android",    "windows", "macos",
    "ubuntu", "debian", "fedora", "centos",     "postgres", "postgresql", "mysql",   "sqlite",
    "gcc",    "clang",  "php",    "ruby",       "perl",     "rust",       "react",   "angular",
    "vue",    "django", "rails",  "kubernetes", "docker",   "chrome",     "firefox", "safari",
    "excel",  "iphone", "ipad",   "qt",         "cuda",     "tensorflow", "pytorch", "numpy",
    "pandas", "linux",  "kernel", "openssl",    "llvm",     "cmake"};

constexpr std::array<std::string_view, 27> kTlds = {
    "com", "org", "net", "io", "dev", "ai", "app", "edu", "gov", "co", "uk", "de",   "fr", "es",
    "it",  "nl",  "eu",  "us", "ca",  "au", "jp",  "ru",  "ch",  "me", "tv", "info", "xyz"};

}  // namespace

// Extends a URL from `pos` to the first white space / bracket-less end, then trims.
std::size_t Detector::UrlEnd(std::size_t pos) const {
  while (pos < text_.size()) {
    const char c = text_[pos];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '<' || c == '>' || c == '"' ||
        c == '`' || c == '{' || c == '}' || c == '|' || c == '\\') {
      break;
    }
    // Curly quotes and no-break space end a URL.
    if (c == '\xE2' && pos + 2 < text_.size() && text_[pos + 1] == '\x80' &&
        (text_[pos + 2] == '\x9C' || text_[pos + 2] == '\x9D' || text_[pos + 2] == '\x98' ||
         text_[pos + 2] == '\x99')) {
      break;
    }
    if (c == '\xC2' && pos + 1 < text_.size() && text_[pos + 1] == '\xA0') break;
    ++pos;
  }
  return pos;
}

std::size_t Detector::TrimUrl(std::size_t begin, std::size_t end) const {
  while (end > begin) {
    const char c = text_[end - 1];
    if (c == '.' || c == ',' || c == ';' || c == ':' || c == '!' || c == '?' || c == '\'' ||
        c == '*') {
      --end;
      continue;
    }
    if (c == ')' || c == ']') {
      const char open = c == ')' ? '(' : '[';
      const std::string_view body = text_.substr(begin, end - begin);
      if (std::count(body.begin(), body.end(), open) < std::count(body.begin(), body.end(), c)) {
        --end;
        continue;
      }
    }
    break;
  }
  return end;
}

std::string Detector::UrlValue(std::size_t begin, std::size_t end) const {
  std::string value(text_.substr(begin, end - begin));
  std::size_t host_start = value.find("://");
  host_start = host_start == std::string::npos ? 0 : host_start + 3;
  std::size_t host_end = value.find_first_of("/?#", host_start);
  if (host_end == std::string::npos) host_end = value.size();
  for (std::size_t k = 0; k < host_end; ++k) {
    if (value[k] >= 'A' && value[k] <= 'Z') value[k] = static_cast<char>(value[k] - 'A' + 'a');
  }
  return value;
}

// ----- phase A: byte-level anchors
void Detector::DetectSchemeUrls() {
  for (std::size_t i = 0; i < n_; ++i) {
    if (claimed_[i] || lx_[i].kind != LexemeKind::kWord) continue;
    const std::string_view w = lx_[i].lower;
    const std::size_t begin = lx_[i].begin;
    std::size_t body = 0;
    if (In(w, {"http", "https", "ftp", "ftps", "ws", "wss", "sftp"}) &&
        text_.substr(lx_[i].end, 3) == "://") {
      body = lx_[i].end + 3;
    } else if (w == "www" && ByteAt(lx_[i].end) == '.' && IsAlnumByte(ByteAt(lx_[i].end + 1))) {
      body = lx_[i].end + 1;
    } else {
      continue;
    }
    if (!WordBoundaryBefore(begin)) continue;
    const std::size_t end = TrimUrl(begin, UrlEnd(body));
    if (end <= body) continue;
    AddAnchor(SignalKind::kUrl, begin, end, UrlValue(begin, end));
    i = LexemeAt(end) - 1;
  }
}

void Detector::DetectEmails() {
  for (std::size_t i = 1; i + 1 < n_; ++i) {
    if (claimed_[i] || !Punct(i, "@") || !Adjacent(i) || !Adjacent(i + 1)) continue;
    std::size_t begin = lx_[i].begin;
    auto local_char = [](char c) {
      return IsAlnumByte(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-';
    };
    while (begin > 0 && local_char(text_[begin - 1])) --begin;
    while (begin < lx_[i].begin && text_[begin] == '.') ++begin;
    if (begin == lx_[i].begin) continue;
    std::size_t end = lx_[i].end;
    while (end < text_.size() &&
           (IsAlnumByte(text_[end]) || text_[end] == '.' || text_[end] == '-')) {
      ++end;
    }
    while (end > lx_[i].end && (text_[end - 1] == '.' || text_[end - 1] == '-')) --end;
    const std::string_view domain = text_.substr(lx_[i].end, end - lx_[i].end);
    const std::size_t dot = domain.rfind('.');
    if (dot == std::string_view::npos || dot == 0 || domain.size() - dot - 1 < 2) continue;
    bool tld_alpha = true;
    for (const char c : domain.substr(dot + 1)) tld_alpha = tld_alpha && IsAlphaByte(c);
    if (!tld_alpha || !RangeFree(begin, end)) continue;
    AddAnchor(SignalKind::kEmail, begin, end, ToLower(text_.substr(begin, end - begin)));
  }
}

void Detector::DetectBareDomains() {
  for (std::size_t i = 0; i < n_; ++i) {
    if (claimed_[i] || (lx_[i].kind != LexemeKind::kWord && lx_[i].kind != LexemeKind::kAlnum)) {
      continue;
    }
    const std::size_t begin = lx_[i].begin;
    if (!WordBoundaryBefore(begin) ||
        (begin > 0 &&
         (text_[begin - 1] == '.' || text_[begin - 1] == '@' || text_[begin - 1] == '/'))) {
      continue;
    }
    std::size_t end = begin;
    std::size_t labels = 1;
    std::size_t last_dot = std::string_view::npos;
    while (end < text_.size() && (IsAlnumByte(text_[end]) || text_[end] == '-' ||
                                  (text_[end] == '.' && IsAlnumByte(ByteAt(end + 1))))) {
      if (text_[end] == '.') {
        ++labels;
        last_dot = end;
      }
      ++end;
    }
    if (labels < 2 || last_dot == std::string_view::npos) continue;
    const std::string tld = ToLower(text_.substr(last_dot + 1, end - last_dot - 1));
    if (!InArray(tld, kTlds)) continue;
    if (!WordBoundaryAfter(end)) continue;
    if (ByteAt(end) == '/') end = TrimUrl(begin, UrlEnd(end));
    if (!RangeFree(begin, end)) continue;
    AddAnchor(SignalKind::kUrl, begin, end, UrlValue(begin, end));
    i = LexemeAt(end) - 1;
  }
}

// Reads an IPv4 address at pos; returns its end or npos.
std::size_t Detector::ScanIpv4(std::size_t pos) const {
  for (int part = 0; part < 4; ++part) {
    if (part > 0) {
      if (ByteAt(pos) != '.') return std::string_view::npos;
      ++pos;
    }
    std::size_t digits = 0;
    int value = 0;
    while (IsDigitByte(ByteAt(pos)) && digits < 4) {
      value = value * 10 + (text_[pos] - '0');
      ++pos;
      ++digits;
    }
    if (digits == 0 || digits > 3 || value > 255) return std::string_view::npos;
  }
  if (IsDigitByte(ByteAt(pos)) || (ByteAt(pos) == '.' && IsDigitByte(ByteAt(pos + 1)))) {
    return std::string_view::npos;
  }
  return pos;
}

// Reads an IPv6 address at pos; returns its end or npos.
std::size_t Detector::ScanIpv6(std::size_t pos) const {
  const std::size_t begin = pos;
  while (pos < text_.size() && (IsHexByte(text_[pos]) || text_[pos] == ':')) ++pos;
  if (pos < text_.size() && (IsAlnumByte(text_[pos]) || text_[pos] == '_')) {
    return std::string_view::npos;
  }
  std::string_view candidate = text_.substr(begin, pos - begin);
  // A trailing single ':' is punctuation ("at fe80::1:").
  if (candidate.size() >= 2 && candidate.back() == ':' &&
      candidate[candidate.size() - 2] != ':') {
    candidate.remove_suffix(1);
  }
  if (candidate.find(":::") != std::string_view::npos) return std::string_view::npos;
  const std::size_t double_colon = candidate.find("::");
  const bool compressed = double_colon != std::string_view::npos;
  if (compressed && candidate.find("::", double_colon + 1) != std::string_view::npos) {
    return std::string_view::npos;
  }
  std::size_t groups = 0;
  std::size_t first_group_size = 0;
  std::size_t colons = 0;
  std::size_t run = 0;
  for (const char c : candidate) {
    if (c == ':') {
      ++colons;
      if (run > 0) {
        if (groups == 0) first_group_size = run;
        ++groups;
      }
      run = 0;
    } else {
      if (++run > 4) return std::string_view::npos;
    }
  }
  if (run > 0) {
    if (groups == 0) first_group_size = run;
    ++groups;
  }
  if (colons < 2) return std::string_view::npos;
  if (!compressed && groups != 8) return std::string_view::npos;
  if (compressed && groups > 7) return std::string_view::npos;
  if (compressed && groups < 3 && double_colon != 0 && first_group_size < 2) {
    return std::string_view::npos;
  }
  if (compressed && groups == 0) return std::string_view::npos;
  return begin + candidate.size();
}

void Detector::DetectIpAddresses() {
  for (std::size_t i = 0; i < n_; ++i) {
    if (claimed_[i]) continue;
    const std::size_t begin = lx_[i].begin;
    if (begin > 0 &&
        (IsAlnumByte(text_[begin - 1]) || text_[begin - 1] == '.' || text_[begin - 1] == ':')) {
      continue;
    }
    std::size_t end = std::string_view::npos;
    std::string topic;
    if (lx_[i].kind == LexemeKind::kNumber) {
      end = ScanIpv4(begin);
      topic = "v4";
    }
    if (end == std::string_view::npos &&
        (lx_[i].kind != LexemeKind::kPunct || lx_[i].lower == ":")) {
      end = ScanIpv6(begin);
      topic = "v6";
    }
    if (end == std::string_view::npos) continue;
    // CIDR suffix.
    if (ByteAt(end) == '/' && IsDigitByte(ByteAt(end + 1))) {
      std::size_t cidr = end + 1;
      while (IsDigitByte(ByteAt(cidr)) && cidr - end <= 3) ++cidr;
      if (!IsAlnumByte(ByteAt(cidr))) end = cidr;
    }
    if (!RangeFree(begin, end)) continue;
    std::string value(text_.substr(begin, end - begin));
    if (topic == "v6") value = ToLower(value);
    AddAnchor(SignalKind::kIpAddress, begin, end, std::move(value), topic);
    i = LexemeAt(end) - 1;
  }
}

void Detector::DetectUuids() {
  static constexpr std::array<std::size_t, 5> kGroups = {8, 4, 4, 4, 12};
  for (std::size_t i = 0; i < n_; ++i) {
    if (claimed_[i] || lx_[i].kind == LexemeKind::kPunct) continue;
    const std::size_t begin = lx_[i].begin;
    if (!WordBoundaryBefore(begin)) continue;
    std::size_t pos = begin;
    bool ok = true;
    for (std::size_t group = 0; group < kGroups.size() && ok; ++group) {
      if (group > 0) {
        if (ByteAt(pos) != '-') {
          ok = false;
          break;
        }
        ++pos;
      }
      for (std::size_t k = 0; k < kGroups[group]; ++k, ++pos) {
        if (!IsHexByte(ByteAt(pos))) {
          ok = false;
          break;
        }
      }
    }
    if (!ok || !WordBoundaryAfter(pos) || ByteAt(pos) == '-') continue;
    AddAnchor(SignalKind::kIdentifier, begin, pos, ToLower(text_.substr(begin, pos - begin)),
              "uuid");
    i = LexemeAt(pos) - 1;
  }
}

// Reads "1", "1.2", "1.2.3" (+ "-beta.1" pre-release when dotted) at pos; returns the end and
// the number of dot-separated parts.
std::pair<std::size_t, int> Detector::ScanDotted(std::size_t pos, bool allow_prerelease) const {
  int parts = 0;
  while (IsDigitByte(ByteAt(pos))) {
    ++parts;
    while (IsDigitByte(ByteAt(pos))) ++pos;
    if (ByteAt(pos) == '.' && IsDigitByte(ByteAt(pos + 1))) {
      ++pos;
    } else {
      break;
    }
  }
  if (allow_prerelease && parts >= 2 && ByteAt(pos) == '-' && IsAlphaByte(ByteAt(pos + 1))) {
    std::size_t at = pos + 1;
    while (IsAlnumByte(ByteAt(at)) || (ByteAt(at) == '.' && IsAlnumByte(ByteAt(at + 1)))) ++at;
    const std::string tag = ToLower(text_.substr(pos + 1, at - pos - 1));
    if (tag.rfind("alpha", 0) == 0 || tag.rfind("beta", 0) == 0 || tag.rfind("rc", 0) == 0 ||
        tag.rfind("dev", 0) == 0 || tag.rfind("pre", 0) == 0 || tag.rfind("snapshot", 0) == 0) {
      pos = at;
    }
  }
  return {pos, parts};
}

void Detector::DetectVersions() {
  for (std::size_t i = 0; i < n_; ++i) {
    if (claimed_[i]) continue;
    const Lexeme& lexeme = lx_[i];
    const std::size_t begin = lexeme.begin;
    // v1.2.3 / V2
    if (lexeme.kind == LexemeKind::kAlnum && (text_[begin] == 'v' || text_[begin] == 'V') &&
        IsDigitByte(ByteAt(begin + 1)) && WordBoundaryBefore(begin)) {
      const auto [end, parts] = ScanDotted(begin + 1, true);
      if (parts >= 1 && WordBoundaryAfter(end) && RangeFree(begin, end)) {
        AddAnchor(SignalKind::kVersion, begin, end,
                  std::string(text_.substr(begin + 1, end - begin - 1)));
        i = LexemeAt(end) - 1;
        continue;
      }
    }
    // "version 2", "ver. 3.1", "release 1.4"; known product + number ("Python 3.11").
    if (lexeme.kind == LexemeKind::kWord) {
      const std::string_view w = lexeme.lower;
      const bool keyword = In(w, {"version", "ver", "release", "firmware", "build"});
      const bool product = InArray(w, kProducts);
      std::size_t next = i + 1;
      if (keyword && Punct(next, ".") && Adjacent(next)) ++next;
      if ((keyword || product) && IsKind(next, LexemeKind::kNumber) && (lx_[next].space_before)) {
        const auto [end, parts] = ScanDotted(lx_[next].begin, true);
        const bool ok = (keyword && w != "build") || parts >= 2 || (product && parts >= 1);
        if (ok && WordBoundaryAfter(end) && ByteAt(end) != '%' && RangeFree(begin, end)) {
          std::string number(text_.substr(lx_[next].begin, end - lx_[next].begin));
          std::string value = product ? std::string(w) + " " + number : number;
          AddAnchor(SignalKind::kVersion, begin, end, std::move(value));
          i = LexemeAt(end) - 1;
          continue;
        }
      }
    }
    // Bare dotted versions with three or more parts: "1.2.3", "2.0.1-rc1".
    if (lexeme.kind == LexemeKind::kNumber &&
        !(begin > 0 && (text_[begin - 1] == '.' || IsAlnumByte(text_[begin - 1])))) {
      const auto [end, parts] = ScanDotted(begin, true);
      if (parts >= 3 && WordBoundaryAfter(end) && !LooksLikeDottedDate(begin, end) &&
          RangeFree(begin, end)) {
        AddAnchor(SignalKind::kVersion, begin, end,
                  std::string(text_.substr(begin, end - begin)));
        i = LexemeAt(end) - 1;
      }
    }
  }
}

void Detector::DetectIdentifiers() {
  for (std::size_t i = 0; i < n_; ++i) {
    if (claimed_[i]) continue;
    const Lexeme& lexeme = lx_[i];
    const std::string_view raw = text_.substr(lexeme.begin, lexeme.end - lexeme.begin);
    // Ticket ids: "ABC-123", "JIRA-42", "A1-7".
    if ((lexeme.kind == LexemeKind::kWord || lexeme.kind == LexemeKind::kAlnum) &&
        raw.size() >= 2 && raw.size() <= 10 && IsUpperByte(raw[0]) && Punct(i + 1, "-") &&
        Adjacent(i + 1) && Adjacent(i + 2) && IsKind(i + 2, LexemeKind::kNumber) &&
        !claimed_[i + 2] && WordBoundaryAfter(lx_[i + 2].end) &&
        std::all_of(raw.begin(), raw.end(),
                    [](char c) { return IsUpperByte(c) || IsDigitByte(c); })) {
      AddAnchor(SignalKind::kIdentifier, lexeme.begin, lx_[i + 2].end,
                std::string(text_.substr(lexeme.begin, lx_[i + 2].end - lexeme.begin)), "ticket");
      i += 2;
      continue;
    }
    // Phone-like digit groups joined by '-' ("555-0100", "+1-202-555-0143"); date shapes
    // (4-2-2, 2-2-4) are left to the temporal parser.
    if (lexeme.kind == LexemeKind::kNumber ||
        (Punct(i, "+") && IsKind(i + 1, LexemeKind::kNumber) && Adjacent(i + 1))) {
      std::size_t k = lexeme.kind == LexemeKind::kNumber ? i : i + 1;
      std::vector<std::size_t> groups = {lx_[k].lower.size()};
      while (Punct(k + 1, "-") && Adjacent(k + 1) && Adjacent(k + 2) &&
             IsKind(k + 2, LexemeKind::kNumber) && !claimed_[k + 2]) {
        k += 2;
        groups.push_back(lx_[k].lower.size());
      }
      std::size_t digits = 0;
      bool short_group = false;
      for (const std::size_t group : groups) {
        digits += group;
        short_group = short_group || group < 2;
      }
      const bool date_shape =
          groups.size() == 3 && ((groups[0] == 4 && groups[1] <= 2 && groups[2] <= 2) ||
                                 (groups[0] <= 2 && groups[1] <= 2 && groups[2] == 4));
      if (groups.size() >= 2 && digits >= 7 && !short_group && !date_shape &&
          WordBoundaryBefore(lexeme.begin) && WordBoundaryAfter(lx_[k].end) &&
          !(lexeme.begin > 0 && text_[lexeme.begin - 1] == '-')) {
        AddAnchor(SignalKind::kIdentifier, lexeme.begin, lx_[k].end,
                  std::string(text_.substr(lexeme.begin, lx_[k].end - lexeme.begin)), "phone");
        i = k;
        continue;
      }
    }
    // Issue references: "#42".
    if (Punct(i, "#") && Adjacent(i + 1) && IsKind(i + 1, LexemeKind::kNumber) &&
        WordBoundaryBefore(lexeme.begin) && !claimed_[i + 1] &&
        WordBoundaryAfter(lx_[i + 1].end)) {
      AddAnchor(SignalKind::kIdentifier, lexeme.begin, lx_[i + 1].end,
                std::string(text_.substr(lexeme.begin, lx_[i + 1].end - lexeme.begin)), "issue");
      ++i;
      continue;
    }
    if (lexeme.kind != LexemeKind::kAlnum) continue;
    std::size_t digits = 0;
    std::size_t hex_letters = 0;
    std::size_t letters = 0;
    bool upper = false;
    bool all_hex = true;
    bool underscore = false;
    for (const char c : raw) {
      if (IsDigitByte(c)) ++digits;
      if (IsAlphaByte(c)) ++letters;
      if (IsUpperByte(c)) upper = true;
      if (c == '_') underscore = true;
      if (IsHexByte(c)) {
        if (!IsDigitByte(c)) ++hex_letters;
      } else {
        all_hex = false;
      }
    }
    if (raw.size() > 2 && raw[0] == '0' && (raw[1] == 'x' || raw[1] == 'X')) {
      bool hex_tail = raw.size() > 2;
      for (const char c : raw.substr(2)) hex_tail = hex_tail && IsHexByte(c);
      if (hex_tail) {
        AddAnchor(SignalKind::kIdentifier, lexeme.begin, lexeme.end, ToLower(raw), "hex");
        continue;
      }
    }
    if (all_hex && raw.size() >= 7 && raw.size() <= 64 && digits > 0 && hex_letters > 0) {
      AddAnchor(SignalKind::kIdentifier, lexeme.begin, lexeme.end, ToLower(raw), "hash");
      continue;
    }
    if (raw.size() >= 4 &&
        ((digits > 0 && letters > 0 && (upper || digits >= 3)) || (underscore && letters > 0))) {
      AddAnchor(SignalKind::kIdentifier, lexeme.begin, lexeme.end, std::string(raw), "code");
    }
  }
}

// ----- phase B: dates and times
void Detector::DetectTimes() {
  for (const TimeMention& mention : FindTimeExpressions(text_, lx_, reference_)) {
    if (!RangeFree(mention.begin, mention.end)) continue;
    const bool clock = mention.granularity == Granularity::kInstant ||
                       mention.granularity == Granularity::kMinute ||
                       mention.granularity == Granularity::kHour ||
                       mention.granularity == Granularity::kPartOfDay;
    AddAnchor(clock ? SignalKind::kTime : SignalKind::kDate, mention.begin, mention.end,
              FormatInterval(mention.from, mention.to),
              std::string(GranularityName(mention.granularity)));
    time_spans_.emplace_back(mention.begin, mention.end);
  }
}

}  // namespace engram::text::signals_detail
