"""Glicko-2 as Mark Glickman's paper "Example of the Glicko-2 system" (glicko.net, 2022) sets it
out, step by step, on the Glicko scale players read (1500-centred; the algorithm's own scale is
that divided by 173.7178).

One call rates one player over one rating period against everyone they met in it.  `periods` is
how many rating periods step 6 widens the deviation by: 1 in the paper; 0 when the widening for
the time that passed has been done beforehand (pbm.ratings.correspondence does it per game)."""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SCALE = 173.7178                # Glicko-2 scale = (Glicko scale - CENTRE) / SCALE
CENTRE = 1500.0
TOLERANCE = 0.000001            # step 5.1's epsilon
MAX_ITERATIONS = 1000           # the Illinois iteration takes about ten; more means bad input


@dataclass(frozen=True)
class Glicko:
    """A rating r, its deviation RD and volatility sigma (Glicko scale)."""
    rating: float
    deviation: float
    volatility: float


def g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-g(phi_j) * (mu - mu_j)))


def widened(deviation: float, volatility: float, periods: float) -> float:
    """Step 6 (and a player who did not play): the deviation after `periods` rating periods."""
    phi = deviation / SCALE
    return math.sqrt(phi * phi + periods * volatility * volatility) * SCALE


def rate(player: Glicko, results: Sequence[tuple[Glicko, float]], tau: float,
         periods: float = 1.0) -> Glicko:
    """Steps 2-8: `player` after a rating period of `results`, (opponent, score 1/0.5/0)."""
    if not results:
        return Glicko(player.rating, widened(player.deviation, player.volatility, periods),
                      player.volatility)
    mu, phi, sigma = (player.rating - CENTRE) / SCALE, player.deviation / SCALE, player.volatility
    games = [((o.rating - CENTRE) / SCALE, o.deviation / SCALE, score) for o, score in results]
    v = 1.0 / sum(g(phi_j) ** 2 * expected(mu, mu_j, phi_j) * (1 - expected(mu, mu_j, phi_j))
                  for mu_j, phi_j, _ in games)                                          # step 3
    gain = sum(g(phi_j) * (score - expected(mu, mu_j, phi_j)) for mu_j, phi_j, score in games)
    delta = v * gain                                                                    # step 4
    sigma = _volatility(delta, phi, v, sigma, tau)                                      # step 5
    phi_star = math.sqrt(phi * phi + periods * sigma * sigma)                           # step 6
    phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)                        # step 7
    mu = mu + phi * phi * gain
    return Glicko(mu * SCALE + CENTRE, phi * SCALE, sigma)                              # step 8


def _volatility(delta: float, phi: float, v: float, sigma: float, tau: float) -> float:
    """Step 5: the new volatility, by the Illinois algorithm on f."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return (ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2)
                - (x - a) / (tau * tau))

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    for _ in range(MAX_ITERATIONS):
        if abs(big_b - big_a) <= TOLERANCE:
            break
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    else:
        raise ArithmeticError(f"Glicko-2 volatility did not converge (delta {delta}, phi {phi}, v {v})")
    return math.exp(big_a / 2.0)
