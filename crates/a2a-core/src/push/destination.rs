//! Which webhook destinations push delivery may reach (spec 13.2: prevent SSRF).
//!
//! By default only public unicast addresses are allowed: loopback, private (RFC 1918, IPv6 ULA),
//! link-local, carrier-grade NAT, unspecified, broadcast, multicast, documentation and
//! IPv4-mapped forms of those are refused. An allowlist of networks opens exceptions (e.g.
//! `127.0.0.0/8` for tests, a private webhook network in production). The check must run on
//! every address a host name resolves to, at connection time (the HTTP transport does that with
//! [`DestinationPolicy::permits`]); [`DestinationPolicy::check_url`] rejects what is knowable from
//! the URL alone, when a config is created.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// A network in CIDR form, e.g. `10.0.0.0/8` or `::1/128`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IpNet {
    addr: IpAddr,
    prefix: u8,
}

impl IpNet {
    /// Whether `ip` is inside the network.
    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.addr, canonical(ip)) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                let mask = u32::MAX.checked_shl(32 - u32::from(self.prefix)).unwrap_or(0);
                u32::from(net) & mask == u32::from(ip) & mask
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                let mask = u128::MAX.checked_shl(128 - u32::from(self.prefix)).unwrap_or(0);
                u128::from(net) & mask == u128::from(ip) & mask
            }
            _ => false,
        }
    }
}

impl std::str::FromStr for IpNet {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (addr, prefix) = match s.split_once('/') {
            Some((addr, prefix)) => (addr, Some(prefix)),
            None => (s, None),
        };
        let addr: IpAddr = addr.trim().parse().map_err(|_| format!("{s:?} is not an IP network"))?;
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            Some(p) => p
                .trim()
                .parse::<u8>()
                .ok()
                .filter(|p| *p <= max)
                .ok_or_else(|| format!("{s:?}: bad prefix"))?,
            None => max,
        };
        Ok(IpNet { addr, prefix })
    }
}

/// The destinations push delivery may reach.
#[derive(Debug, Clone, Default)]
pub struct DestinationPolicy {
    allow: Vec<IpNet>,
    https_only: bool,
}

impl DestinationPolicy {
    /// Public addresses only.
    pub fn public_only() -> Self {
        Self::default()
    }

    /// Also allows these networks.
    pub fn allowing(mut self, nets: impl IntoIterator<Item = IpNet>) -> Self {
        self.allow.extend(nets);
        self
    }

    /// Refuses `http` webhook URLs: notifications (and the credentials they carry) go over TLS
    /// only.
    pub fn https_only(mut self) -> Self {
        self.https_only = true;
        self
    }

    /// Allows every address (tests, trusted networks). Use with care.
    pub fn allow_all() -> Self {
        Self::default().allowing(["0.0.0.0/0".parse().expect("valid"), "::/0".parse().expect("valid")])
    }

    /// Whether delivery may connect to `ip`.
    pub fn permits(&self, ip: IpAddr) -> bool {
        self.allow.iter().any(|net| net.contains(ip)) || is_public(canonical(ip))
    }

    /// Checks what the URL alone tells: an absolute `http`/`https` URL with a host, not
    /// `localhost`, and, for an IP literal, a permitted address. Returns a reason when refused.
    pub fn check_url(&self, url: &str) -> Result<url::Url, String> {
        let parsed = url::Url::parse(url).map_err(|e| format!("not a valid absolute URL: {e}"))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(format!("scheme {:?} is not http or https", parsed.scheme()));
        }
        if self.https_only && parsed.scheme() != "https" {
            return Err("only https webhooks are allowed".into());
        }
        match parsed.host() {
            None => Err("the URL has no host".into()),
            Some(url::Host::Ipv4(ip)) if !self.permits(IpAddr::V4(ip)) => {
                Err(format!("destination {ip} is not allowed (private, loopback or link-local)"))
            }
            Some(url::Host::Ipv6(ip)) if !self.permits(IpAddr::V6(ip)) => {
                Err(format!("destination {ip} is not allowed (private, loopback or link-local)"))
            }
            // `localhost.` (the absolute form) is localhost too.
            Some(url::Host::Domain(domain))
                if is_localhost(domain.trim_end_matches('.'))
                    && !self.permits(IpAddr::V4(Ipv4Addr::LOCALHOST)) =>
            {
                Err("destination localhost is not allowed".into())
            }
            _ => Ok(parsed),
        }
    }
}

fn is_localhost(domain: &str) -> bool {
    domain.eq_ignore_ascii_case("localhost") || domain.to_ascii_lowercase().ends_with(".localhost")
}

/// IPv4-mapped and IPv4-compatible IPv6 addresses are judged as the IPv4 address they carry.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(ip) => {
            let [a, b, ..] = ip.octets();
            !(ip.is_private()
                || ip.is_loopback()
                || ip.is_link_local()
                || ip.is_unspecified()
                || ip.is_broadcast()
                || ip.is_multicast()
                || ip.is_documentation()
                || a == 0
                || (a == 100 && (64..128).contains(&b)) // carrier-grade NAT
                || (a == 198 && (b == 18 || b == 19)) // benchmarking
                || a >= 240)
        }
        IpAddr::V6(ip) => {
            let first = ip.segments()[0];
            !(ip.is_loopback()
                || ip.is_unspecified()
                || ip.is_multicast()
                || (first & 0xfe00) == 0xfc00 // unique local
                || (first & 0xffc0) == 0xfe80 // link-local
                || (first == 0x2001 && ip.segments()[1] == 0xdb8) // documentation
                || ip == Ipv6Addr::from(1u128))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn private_loopback_and_link_local_ranges_are_refused_by_default() {
        let policy = DestinationPolicy::public_only();
        for refused in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "::1",
            "fe80::1",
            "fd00::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
        ] {
            assert!(!policy.permits(ip(refused)), "{refused}");
        }
        for allowed in ["8.8.8.8", "1.1.1.1", "172.32.0.1", "2606:4700:4700::1111"] {
            assert!(policy.permits(ip(allowed)), "{allowed}");
        }
    }

    #[test]
    fn the_allowlist_opens_exceptions() {
        let policy = DestinationPolicy::public_only().allowing(["127.0.0.0/8".parse().unwrap()]);
        assert!(policy.permits(ip("127.0.0.1")));
        assert!(policy.permits(ip("::ffff:127.0.0.2")));
        assert!(!policy.permits(ip("10.0.0.1")));
        assert!(DestinationPolicy::allow_all().permits(ip("10.0.0.1")));
        assert!(DestinationPolicy::allow_all().permits(ip("::1")));
    }

    #[test]
    fn urls_are_checked_for_scheme_host_and_literal_addresses() {
        let policy = DestinationPolicy::public_only();
        assert!(policy.check_url("https://hooks.example.com/a2a").is_ok());
        assert!(policy.check_url("http://8.8.8.8/x").is_ok());
        for bad in [
            "ftp://example.com/x",
            "not a url",
            "/relative",
            "http://127.0.0.1:9/x",
            "http://[::1]/x",
            "http://localhost:8080/",
            "http://localhost.:8080/",
            "http://LOCALHOST/",
            "http://api.localhost/",
            "http://169.254.169.254/latest",
            "http://[::ffff:169.254.169.254]/latest",
            "http://0.0.0.0/",
        ] {
            assert!(policy.check_url(bad).is_err(), "{bad}");
        }
        let open = DestinationPolicy::public_only().allowing(["127.0.0.0/8".parse().unwrap()]);
        assert!(open.check_url("http://localhost:8080/").is_ok());
        let tls = DestinationPolicy::public_only().https_only();
        assert!(tls.check_url("https://hooks.example.com/a2a").is_ok());
        assert_eq!(
            tls.check_url("http://hooks.example.com/a2a").unwrap_err(),
            "only https webhooks are allowed"
        );
    }

    #[test]
    fn networks_parse_and_reject_bad_prefixes() {
        assert!("10.0.0.0/8".parse::<IpNet>().unwrap().contains(ip("10.200.0.1")));
        assert!("::/0".parse::<IpNet>().unwrap().contains(ip("fe80::1")));
        assert!("10.0.0.0/33".parse::<IpNet>().is_err());
        assert!("nonsense".parse::<IpNet>().is_err());
    }
}
